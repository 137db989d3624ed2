//! `podium live`: a client of the live feed (LIVE-1 … LIVE-4) for a terminal: connects
//! to `podium serve`'s `/v1/live` (or the local stack's `/live` with its token) as a
//! player, watches boards, and prints every frame received as one JSON line. It exits
//! non-zero when the connection is refused or closed by the server, or a message of
//! its was refused (an `error` frame).

use std::io::Write as _;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::{self, Message};

use crate::error::CliError;

/// What to connect to and watch.
pub struct Options {
    /// `ws://127.0.0.1:8080/v1/live` (no TLS: a local server).
    pub url: String,
    /// The token: `Dev <player-id>` for `podium serve`, a JWT for the local stack.
    pub token: String,
    /// Board ids watched in the global view.
    pub watch: Vec<String>,
    /// How long to listen (`None`: until the server closes).
    pub listen: Option<Duration>,
}

fn refused(message: String) -> CliError {
    CliError::StoreUnreachable(message)
}

/// Connects, watches, prints frames until `listen` ends or the server closes.
pub async fn run(o: Options) -> Result<(), CliError> {
    let sep = if o.url.contains('?') { '&' } else { '?' };
    let token: String =
        percent_encoding::utf8_percent_encode(&o.token, percent_encoding::NON_ALPHANUMERIC).collect();
    let url = format!("{}{sep}token={token}", o.url);
    let (mut ws, _) = match tokio_tungstenite::connect_async(&url).await {
        Ok(c) => c,
        Err(tungstenite::Error::Http(r)) => {
            let body = r
                .body()
                .as_deref()
                .map(String::from_utf8_lossy)
                .unwrap_or_default()
                .to_string();
            return Err(refused(format!("{}: refused with {}: {body}", o.url, r.status())));
        }
        Err(e) => return Err(refused(format!("{}: {e} (is the server running?)", o.url))),
    };
    let boards: Vec<serde_json::Value> = o.watch.iter().map(|b| serde_json::json!({"board": b})).collect();
    let watch = serde_json::json!({"action": "watch", "boards": boards}).to_string();
    ws.send(Message::Text(watch.into()))
        .await
        .map_err(|e| refused(format!("{}: {e}", o.url)))?;
    let until = o.listen.map(|d| tokio::time::Instant::now() + d);
    let mut refusal: Option<String> = None;
    let mut out = std::io::stdout();
    loop {
        let next = match until {
            Some(at) => match tokio::time::timeout_at(at, ws.next()).await {
                Ok(n) => n,
                Err(_) => break,
            },
            None => ws.next().await,
        };
        match next {
            Some(Ok(Message::Text(t))) => {
                writeln!(out, "{t}")?;
                out.flush()?;
                if t.starts_with(r#"{"type":"error""#) {
                    refusal.get_or_insert(t.to_string());
                }
            }
            Some(Ok(Message::Close(Some(frame))))
                if frame.code != tungstenite::protocol::frame::coding::CloseCode::Normal =>
            {
                let _ = ws.close(None).await;
                return Err(refused(format!(
                    "{}: closed by the server: {}",
                    o.url, frame.reason
                )));
            }
            Some(Ok(Message::Close(_))) | None => break,
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(refused(format!("{}: {e}", o.url))),
        }
    }
    let _ = ws.close(None).await;
    match refusal {
        // Printed already; the exit status says so too.
        Some(r) => Err(refused(format!("{}: a message was refused: {r}", o.url))),
        None => Ok(()),
    }
}
