//! A change to what a page shows (a card, a suspension, a deletion) reaches every board that shows it at the next refresh (PF-5, OP-4, GM-6).

/// Declares one `#[tokio::test]` per case of this module for a store made by `$make`.
#[macro_export]
macro_rules! card_changes_tests {
    ($make:path) => {
        $crate::card_changes_tests!(@cases $make;);
    };
    (@cases $make:path; $($case:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                $crate::card_changes::$case($make().await).await;
            }
        )*
    };
}
