//! AdMob's verifier keys, fetched from Google on first use and cached across
//! invocations: kept at most [`MAX_AGE`], fetched again when a callback names an
//! unknown key id, but not more often than once per [`MIN_REFETCH`] (a flood of
//! callbacks with made-up key ids costs one fetch a minute).

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use p256::ecdsa::VerifyingKey;
use podium_ads::keys::KeySet;
use podium_service::players::rewards::AdmobKeys;
use podium_service::ServiceError;
use tokio::sync::Mutex;

/// The longest a fetched key set is trusted.
pub const MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// The shortest pause between two fetches for unknown key ids.
pub const MIN_REFETCH: Duration = Duration::from_secs(60);

/// Where the key set comes from.
#[async_trait]
pub trait Fetch: Send + Sync {
    /// The published key JSON.
    async fn fetch(&self) -> Result<Vec<u8>, String>;
}

/// An HTTPS GET of the verifier-keys URL, with timeouts. The client (and the root
/// certificates it loads) is built on the first fetch, not at start-up.
pub struct HttpFetch {
    client: tokio::sync::OnceCell<reqwest::Client>,
    url: String,
}

impl HttpFetch {
    /// A fetcher of `url` (connect 2 s, whole request 5 s).
    pub fn new(url: String) -> Self {
        HttpFetch {
            client: tokio::sync::OnceCell::new(),
            url,
        }
    }

    async fn client(&self) -> Result<&reqwest::Client, String> {
        self.client
            .get_or_try_init(|| async {
                // ring, as for the SDK's client (no aws-lc in the process); a provider
                // installed earlier stays.
                let _ = rustls::crypto::ring::default_provider().install_default();
                reqwest::Client::builder()
                    .connect_timeout(Duration::from_secs(2))
                    .timeout(Duration::from_secs(5))
                    .build()
                    .map_err(|e| e.to_string())
            })
            .await
    }
}

#[async_trait]
impl Fetch for HttpFetch {
    async fn fetch(&self) -> Result<Vec<u8>, String> {
        let response = self
            .client()
            .await?
            .get(&self.url)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if !response.status().is_success() {
            return Err(format!("HTTP {}", response.status()));
        }
        let bytes = response.bytes().await.map_err(|e| e.to_string())?;
        Ok(bytes.to_vec())
    }
}

struct Cached {
    keys: Arc<KeySet>,
    fetched: Instant,
}

/// The key set from a [`Fetch`], cached (see the module notes).
pub struct FetchedKeys<F> {
    fetch: F,
    cached: Mutex<Option<Cached>>,
    last_attempt: Mutex<Option<Instant>>,
}

impl<F: Fetch> FetchedKeys<F> {
    pub fn new(fetch: F) -> Self {
        FetchedKeys {
            fetch,
            cached: Mutex::new(None),
            last_attempt: Mutex::new(None),
        }
    }

    async fn refresh(&self) -> Result<Arc<KeySet>, ServiceError> {
        *self.last_attempt.lock().await = Some(Instant::now());
        let bytes = self.fetch.fetch().await.map_err(|e| {
            tracing::warn!(error = %e, "verifier keys could not be fetched");
            ServiceError::Store(podium_store::StoreError::Unavailable {
                operation: podium_service::players::rewards::VERIFIER_KEYS,
                message: e,
            })
        })?;
        let keys = Arc::new(KeySet::from_json(&bytes).map_err(|e| {
            ServiceError::Store(podium_store::StoreError::Unavailable {
                operation: podium_service::players::rewards::VERIFIER_KEYS,
                message: e.to_string(),
            })
        })?);
        *self.cached.lock().await = Some(Cached {
            keys: Arc::clone(&keys),
            fetched: Instant::now(),
        });
        Ok(keys)
    }
}

#[async_trait]
impl<F: Fetch> AdmobKeys for FetchedKeys<F> {
    async fn key(&self, key_id: u64) -> Result<Option<VerifyingKey>, ServiceError> {
        let current = {
            let cached = self.cached.lock().await;
            cached
                .as_ref()
                .filter(|c| c.fetched.elapsed() < MAX_AGE)
                .map(|c| Arc::clone(&c.keys))
        };
        let keys = match current {
            Some(keys) if keys.get(key_id).is_some() => return Ok(keys.get(key_id).copied()),
            Some(keys) => {
                // An unknown id: fetch again, unless that was tried a moment ago.
                let recent = self
                    .last_attempt
                    .lock()
                    .await
                    .is_some_and(|t| t.elapsed() < MIN_REFETCH);
                if recent {
                    keys
                } else {
                    self.refresh().await?
                }
            }
            None => self.refresh().await?,
        };
        Ok(keys.get(key_id).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// Serves a fixed document and counts the fetches.
    struct Counting {
        body: Vec<u8>,
        fetches: AtomicU32,
    }

    #[async_trait]
    impl Fetch for Counting {
        async fn fetch(&self) -> Result<Vec<u8>, String> {
            self.fetches.fetch_add(1, Ordering::SeqCst);
            Ok(self.body.clone())
        }
    }

    const TINK_KEYS: &str = r#"{"keys":[{"keyId":1234,"base64":"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEPYnHwS8uegWAewQtlxizmLFynwHcxRT1PK07cDA6/C4sXrVI1SzZCUx8U8S0LjMrT6ird/VW7be3Mz6t/srtRQ=="}]}"#;

    /// Fetched on first use, cached for known ids, fetched again for an unknown id
    /// once a minute at most.
    #[tokio::test]
    async fn fetched_once_then_cached_and_rate_limited() {
        let keys = FetchedKeys::new(Counting {
            body: TINK_KEYS.as_bytes().to_vec(),
            fetches: AtomicU32::new(0),
        });
        assert!(keys.key(1234).await.unwrap().is_some());
        assert!(keys.key(1234).await.unwrap().is_some());
        assert_eq!(keys.fetch.fetches.load(Ordering::SeqCst), 1);
        for _ in 0..50 {
            assert!(keys.key(99).await.unwrap().is_none());
        }
        assert_eq!(keys.fetch.fetches.load(Ordering::SeqCst), 1, "rate-limited");
        *keys.last_attempt.lock().await = Some(Instant::now() - MIN_REFETCH);
        assert!(keys.key(99).await.unwrap().is_none());
        assert_eq!(keys.fetch.fetches.load(Ordering::SeqCst), 2);
    }

    /// A failed fetch is transient (the network retries the callback).
    #[tokio::test]
    async fn a_failed_fetch_is_transient() {
        struct Down;
        #[async_trait]
        impl Fetch for Down {
            async fn fetch(&self) -> Result<Vec<u8>, String> {
                Err("connection refused".into())
            }
        }
        let err = FetchedKeys::new(Down).key(1).await.unwrap_err();
        assert!(err.is_unavailable(), "{err:?}");
    }
}
