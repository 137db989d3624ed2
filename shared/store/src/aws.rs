//! The AWS SDK configuration every function and tool shares: one HTTPS client for
//! all SDK clients of a process, whose connectors (and with them the TLS root
//! certificates) are built at the first request rather than at start-up.
//!
//! In Lambda, [`lambda_sdk_config`] takes the region and the credentials from the
//! environment Lambda sets (`AWS_REGION`, `AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`) instead of walking the SDK's default
//! chains, which build further clients (STS, SSO) and their connectors at start-up.
//! Elsewhere, [`local_sdk_config`] keeps the default chains (profiles, IMDS, …).

use std::sync::OnceLock;

use aws_config::environment::{EnvironmentVariableCredentialsProvider, EnvironmentVariableRegionProvider};
use aws_config::{BehaviorVersion, SdkConfig};
use aws_runtime::env_config::file::{EnvConfigFileKind, EnvConfigFiles};
use aws_smithy_http_client::tls::{self, rustls_provider::CryptoMode};
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::connector_metadata::ConnectorMetadata;
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnectorSettings, SharedHttpClient, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::runtime_components::{RuntimeComponents, RuntimeComponentsBuilder};
use aws_smithy_types::config_bag::ConfigBag;

/// The SDK configuration of a Lambda function: region and credentials from Lambda's
/// environment variables, the process's one [`https_client`]. Endpoint overrides
/// (`AWS_ENDPOINT_URL_DYNAMODB`, …) are still honoured.
///
/// No profile file is read: Lambda has none, and looking for `~/.aws/config` and
/// `~/.aws/credentials` costs a cold start a blocking thread and two file opens.
/// The SDK is given one empty config file instead ([`no_profile_files`]).
pub async fn lambda_sdk_config() -> SdkConfig {
    aws_config::defaults(BehaviorVersion::latest())
        .region(EnvironmentVariableRegionProvider::new())
        .credentials_provider(EnvironmentVariableCredentialsProvider::new())
        .profile_files(no_profile_files())
        .http_client(https_client())
        .load()
        .await
}

/// What a Lambda function makes from the SDK configuration (its store, its other
/// clients), made on its first event rather than before its first poll of the Runtime
/// API: a cold start waits for everything done before that poll, and loading the
/// configuration and building a client (the endpoint partitions parsed, their
/// patterns compiled, the code that does it paged in) was most of what the functions
/// did beyond a hello-world's start. Made once, by the first event; the events after
/// it find it made. Configuration errors are still found before the first poll: the
/// functions read their settings first.
pub struct OnFirstEvent<T> {
    made: tokio::sync::OnceCell<T>,
    make: Box<dyn Fn(SdkConfig) -> T + Send + Sync>,
}

impl<T> OnFirstEvent<T> {
    /// `make` is run once, on the first [`OnFirstEvent::get`], with [`lambda_sdk_config`].
    pub fn new(make: impl Fn(SdkConfig) -> T + Send + Sync + 'static) -> Self {
        OnFirstEvent {
            made: tokio::sync::OnceCell::new(),
            make: Box::new(make),
        }
    }

    /// What `make` made, made now when this is the first call.
    pub async fn get(&self) -> &T {
        self.made
            .get_or_init(|| async { (self.make)(lambda_sdk_config().await) })
            .await
    }
}

/// A profile file set of one empty config file: nothing read from disk.
pub fn no_profile_files() -> EnvConfigFiles {
    EnvConfigFiles::builder()
        .with_contents(EnvConfigFileKind::Config, "")
        .build()
}

/// The SDK configuration of a tool or test run outside Lambda: the SDK's default
/// region and credential chains, the process's one [`https_client`].
pub async fn local_sdk_config() -> SdkConfig {
    aws_config::defaults(BehaviorVersion::latest())
        .http_client(https_client())
        .load()
        .await
}

/// The process's HTTPS client ([`new_https_client`]), shared by every SDK client so
/// that one connection pool and one set of connectors serve them all. Its pooled
/// connections belong to the Tokio runtime that opened them: a process that runs
/// several runtimes one after another (a test binary) gives each its own client.
pub fn https_client() -> SharedHttpClient {
    static CLIENT: OnceLock<SharedHttpClient> = OnceLock::new();
    CLIENT.get_or_init(new_https_client).clone()
}

/// A new HTTPS client: hyper 1, rustls with ring, the machine's root certificates;
/// connectors (and with them the root certificates) are built on the first request.
pub fn new_https_client() -> SharedHttpClient {
    SharedHttpClient::new(OnFirstRequest(
        aws_smithy_http_client::Builder::new()
            .tls_provider(tls::Provider::Rustls(CryptoMode::Ring))
            .build_https(),
    ))
}

/// An HTTP client that builds nothing when an SDK client is constructed. The SDK's
/// hyper client builds a throw-away connector in `validate_base_client_config`, so that
/// a misconfigured TLS setup fails at construction: that loads and parses every root
/// certificate once per SDK client before the function can take its first event. Here
/// the connector for each timeout setting is built (and cached by the inner client)
/// when the first request needs it.
#[derive(Debug)]
struct OnFirstRequest(SharedHttpClient);

impl HttpClient for OnFirstRequest {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        self.0.http_connector(settings, components)
    }

    fn validate_base_client_config(
        &self,
        _: &RuntimeComponentsBuilder,
        _: &ConfigBag,
    ) -> Result<(), BoxError> {
        Ok(())
    }

    fn validate_final_config(&self, components: &RuntimeComponents, cfg: &ConfigBag) -> Result<(), BoxError> {
        self.0.validate_final_config(components, cfg)
    }

    fn connector_metadata(&self) -> Option<ConnectorMetadata> {
        self.0.connector_metadata()
    }
}
