//! AdMob's verifier keys, fetched from Google on first use and cached across
//! invocations: kept [`MAX_AGE`], fetched again when a callback names an unknown key
//! id, but not more often than once per [`MIN_REFETCH`] (a flood of callbacks with
//! made-up key ids costs one fetch a minute). One fetch at a time: concurrent
//! callbacks that need keys wait for it and use what it brought. A failed fetch is
//! not tried again for [`RETRY_AFTER_FAILURE`] (a flood of callbacks while Google is
//! unreachable costs no more fetches); meanwhile, and when the fetch of an expired
//! set fails, the last set fetched serves for up to [`STALE_LIMIT`], else the
//! callback is answered 503 (the network retries it).

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

/// The shortest pause after a failed fetch before the next.
pub const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(10);

/// The oldest key set that still serves while fetches fail.
pub const STALE_LIMIT: Duration = Duration::from_secs(7 * 24 * 3600);

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
    /// The last fetch's start, and whether it failed.
    last_attempt: Mutex<Option<(Instant, bool)>>,
    /// Held through a fetch: one at a time.
    fetching: Mutex<()>,
}

fn unavailable(message: String) -> ServiceError {
    ServiceError::Store(podium_store::StoreError::Unavailable {
        operation: podium_service::players::rewards::VERIFIER_KEYS,
        message,
    })
}

impl<F: Fetch> FetchedKeys<F> {
    pub fn new(fetch: F) -> Self {
        FetchedKeys {
            fetch,
            cached: Mutex::new(None),
            last_attempt: Mutex::new(None),
            fetching: Mutex::new(()),
        }
    }

    async fn refresh(&self) -> Result<Arc<KeySet>, ServiceError> {
        let started = Instant::now();
        let fetched = match self.fetch.fetch().await {
            Ok(bytes) => KeySet::from_json(&bytes).map_err(|e| e.to_string()),
            Err(e) => Err(e),
        };
        *self.last_attempt.lock().await = Some((started, fetched.is_err()));
        let keys = Arc::new(fetched.map_err(|e| {
            tracing::warn!(error = %e, "verifier keys could not be fetched");
            unavailable(e)
        })?);
        *self.cached.lock().await = Some(Cached {
            keys: Arc::clone(&keys),
            fetched: Instant::now(),
        });
        Ok(keys)
    }

    /// The cached set and its age.
    async fn cached(&self) -> Option<(Arc<KeySet>, Duration)> {
        let cached = self.cached.lock().await;
        cached
            .as_ref()
            .map(|c| (Arc::clone(&c.keys), c.fetched.elapsed()))
    }
}

#[async_trait]
impl<F: Fetch> AdmobKeys for FetchedKeys<F> {
    async fn key(&self, key_id: u64) -> Result<Option<VerifyingKey>, ServiceError> {
        if let Some((keys, age)) = self.cached().await {
            if age < MAX_AGE && keys.get(key_id).is_some() {
                return Ok(keys.get(key_id).copied());
            }
        }
        // One fetch at a time; a caller that waited finds what the fetch brought.
        let _one = self.fetching.lock().await;
        let cached = self.cached().await;
        let last = *self.last_attempt.lock().await;
        let stale = |why: ServiceError| match &cached {
            Some((keys, age)) if *age < STALE_LIMIT => Ok(keys.get(key_id).copied()),
            _ => Err(why),
        };
        match (&cached, last) {
            (Some((keys, age)), _) if *age < MAX_AGE && keys.get(key_id).is_some() => {
                return Ok(keys.get(key_id).copied())
            }
            // An unknown id in a fresh set: fetch again, unless that was tried a moment ago.
            (Some((keys, age)), Some((at, _))) if *age < MAX_AGE && at.elapsed() < MIN_REFETCH => {
                return Ok(keys.get(key_id).copied())
            }
            (_, Some((at, true))) if at.elapsed() < RETRY_AFTER_FAILURE => {
                return stale(unavailable("the last fetch failed a moment ago".into()));
            }
            _ => {}
        }
        match self.refresh().await {
            Ok(keys) => Ok(keys.get(key_id).copied()),
            Err(e) => stale(e),
        }
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
        *keys.last_attempt.lock().await = Some((Instant::now() - MIN_REFETCH, false));
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

    /// Callbacks while Google is unreachable (found by an attack pass: 30 at once made
    /// 30 fetches): concurrent ones share one fetch, later ones make none for
    /// [`RETRY_AFTER_FAILURE`]; the last set fetched serves, up to [`STALE_LIMIT`],
    /// when the fetch of an expired set fails.
    #[tokio::test]
    async fn failed_fetches_are_shared_paced_and_the_last_set_serves() {
        struct Flaky {
            up: std::sync::atomic::AtomicBool,
            fetches: AtomicU32,
        }
        #[async_trait]
        impl Fetch for Flaky {
            async fn fetch(&self) -> Result<Vec<u8>, String> {
                self.fetches.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                match self.up.load(Ordering::SeqCst) {
                    true => Ok(TINK_KEYS.as_bytes().to_vec()),
                    false => Err("connection refused".into()),
                }
            }
        }
        let keys = Arc::new(FetchedKeys::new(Flaky {
            up: false.into(),
            fetches: AtomicU32::new(0),
        }));
        let at_once = futures::future::join_all((0..30).map(|_| keys.key(1234))).await;
        assert!(at_once
            .iter()
            .all(|r| r.as_ref().is_err_and(ServiceError::is_unavailable)));
        assert_eq!(
            keys.fetch.fetches.load(Ordering::SeqCst),
            1,
            "one fetch for 30 callbacks"
        );
        assert!(keys.key(1234).await.is_err());
        assert_eq!(keys.fetch.fetches.load(Ordering::SeqCst), 1, "none again so soon");
        // Up: fetched; then the set expires while Google is down again: the last one serves.
        keys.fetch.up.store(true, Ordering::SeqCst);
        *keys.last_attempt.lock().await = None;
        assert!(keys.key(1234).await.expect("fetched").is_some());
        keys.fetch.up.store(false, Ordering::SeqCst);
        keys.cached.lock().await.as_mut().expect("cached").fetched = Instant::now() - MAX_AGE;
        assert!(keys.key(1234).await.expect("the last set").is_some());
        assert_eq!(keys.fetch.fetches.load(Ordering::SeqCst), 3);
        keys.cached.lock().await.as_mut().expect("cached").fetched = Instant::now() - STALE_LIMIT;
        *keys.last_attempt.lock().await = None;
        assert!(keys.key(1234).await.is_err(), "too old to serve");
    }
}
