//! A Lambda function's SDK configuration reads no profile file: a cold start opens no
//! `~/.aws/config` or `~/.aws/credentials` (Lambda has neither).

use std::io::Write;

/// One test (it sets the process's environment): a config file that names an
/// endpoint is honoured by the local configuration and ignored by the Lambda one.
#[tokio::test]
async fn the_lambda_configuration_reads_no_profile_file() {
    let dir = std::env::temp_dir().join(format!("podium-sdk-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let config = dir.join("config");
    let mut f = std::fs::File::create(&config).expect("config file");
    writeln!(f, "[default]\nendpoint_url = http://from-a-profile-file.invalid").expect("write");
    // The only test in this binary: nothing else reads the environment meanwhile.
    std::env::set_var("AWS_CONFIG_FILE", &config);
    std::env::set_var("AWS_SHARED_CREDENTIALS_FILE", dir.join("credentials"));
    std::env::set_var("AWS_REGION", "eu-central-1");
    std::env::set_var("AWS_ACCESS_KEY_ID", "test");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "test");
    std::env::set_var("AWS_EC2_METADATA_DISABLED", "true");
    std::env::remove_var("AWS_ENDPOINT_URL");
    std::env::remove_var("AWS_PROFILE");
    let local = podium_store::aws::local_sdk_config().await;
    assert_eq!(
        local.endpoint_url(),
        Some("http://from-a-profile-file.invalid"),
        "the local configuration reads the profile file (else this test proves nothing)"
    );
    let lambda = podium_store::aws::lambda_sdk_config().await;
    assert_eq!(
        lambda.endpoint_url(),
        None,
        "the Lambda configuration read a profile file"
    );
    assert_eq!(lambda.region().map(|r| r.as_ref()), Some("eu-central-1"));
    let _ = std::fs::remove_dir_all(&dir);
}
