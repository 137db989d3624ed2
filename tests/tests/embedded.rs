//! The store contract suite on the embedded store.

podium_tests::contract_tests!(podium_tests::fixtures::embedded);
podium_tests::review_tests!(podium_tests::fixtures::embedded);
podium_tests::performance_tests!(podium_tests::fixtures::embedded);
podium_tests::rewards_tests!(podium_tests::fixtures::embedded);
