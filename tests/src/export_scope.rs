//! A player's export holds what concerns them, other players only as the role they played (GDPR Art. 15(4), 20(4)).

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! export_scope_tests {
    ($make:path) => {
        $crate::export_scope_tests!(@cases $make;);
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::export_scope::$case($make().await).await;
            }
        )*
    };
}
