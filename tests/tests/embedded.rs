//! The store contract suite on the embedded store.

podium_tests::contract_tests!(podium_tests::fixtures::embedded);
