//! Every read that lists players hides a suspended player through one read path (OP-4).

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! hidden_views_tests {
    ($make:path) => {
        $crate::hidden_views_tests!(@cases $make;);
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::hidden_views::$case($make().await).await;
            }
        )*
    };
}
