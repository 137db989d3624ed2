//! Snapshot publication: every refresh has its own identity, and a run is complete only once its pointer is published (LB-5).

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! publication_tests {
    ($make:path) => {
        $crate::publication_tests!(@cases $make;);
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::publication::$case($make().await).await;
            }
        )*
    };
}
