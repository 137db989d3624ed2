//! Moderation (suspensions, restores, deletions, name changes) never sends play messages (overtaken, rank-ups).

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! moderation_messages_tests {
    ($make:path) => {
        $crate::moderation_messages_tests!(@cases $make;);
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::moderation_messages::$case($make().await).await;
            }
        )*
    };
}
