//! The store contract suite on DynamoDB Local (started by `scripts/test`; these
//! tests fail, never skip, without it).

podium_tests::contract_tests!(podium_tests::fixtures::dynamodb);
