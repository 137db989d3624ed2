//! The verifier keys fetched over HTTP from a local server (the production URL is
//! AdMob's; the client and its timeouts are the same).

use ad_reward::keys::{Fetch, FetchedKeys, HttpFetch};
use podium_service::players::rewards::AdmobKeys;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const KEYS: &str = r#"{"keys":[{"keyId":1234,"base64":"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEPYnHwS8uegWAewQtlxizmLFynwHcxRT1PK07cDA6/C4sXrVI1SzZCUx8U8S0LjMrT6ird/VW7be3Mz6t/srtRQ=="}]}"#;

/// Serves `status` and `body` to every connection; the URL.
async fn serve(status: &'static str, body: &'static str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf).await;
            let reply = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = conn.write_all(reply.as_bytes()).await;
        }
    });
    format!("http://{addr}/admob/reward/verifier-keys.json")
}

#[tokio::test]
async fn keys_are_fetched_over_http() {
    let keys = FetchedKeys::new(HttpFetch::new(serve("200 OK", KEYS).await));
    assert!(keys.key(1234).await.expect("fetched").is_some());
    assert!(keys.key(1).await.expect("known set").is_none());
}

#[tokio::test]
async fn a_failing_key_server_is_transient() {
    let fetch = HttpFetch::new(serve("503 Service Unavailable", "{}").await);
    assert!(fetch.fetch().await.unwrap_err().contains("503"));
    let keys = FetchedKeys::new(HttpFetch::new(serve("200 OK", "not json").await));
    assert!(keys.key(1234).await.unwrap_err().is_unavailable());
    // Nothing listening: refused at once, within the client's timeouts.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr")
    };
    let keys = FetchedKeys::new(HttpFetch::new(format!("http://{closed}/keys")));
    assert!(keys.key(1234).await.unwrap_err().is_unavailable());
}
