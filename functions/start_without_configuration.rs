//! Shared by the HTTP function crates as their `start` test (`[[test]]` in each
//! Cargo.toml): the binary as Lambda would start it, but with none of its
//! configuration, refuses to start, naming the first missing variable, instead of
//! polling for events (configuration is read once at start-up and fails fast). The
//! whole start under a Runtime API with the template's environment is
//! tools/local-stack's test. Having this test also makes `cargo test` build the binary.

#[test]
fn without_its_configuration_it_refuses_to_start_naming_the_variable() {
    let binary = env!(concat!("CARGO_BIN_EXE_", env!("CARGO_PKG_NAME")));
    let out = std::process::Command::new(binary)
        .env_clear()
        .env("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9")
        .output()
        .expect("run the binary");
    assert!(!out.status.success());
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("is not set"), "{text}");
}
