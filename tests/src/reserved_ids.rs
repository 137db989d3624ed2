//! Internal owners (leagues, tournaments, level records) never act as players: every way in refuses their reserved form (GM-5, GM-6).

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! reserved_ids_tests {
    ($make:path) => {
        $crate::reserved_ids_tests!(@cases $make;);
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::reserved_ids::$case($make().await).await;
            }
        )*
    };
}
