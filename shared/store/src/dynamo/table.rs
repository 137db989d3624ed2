//! The table podium needs, created where it is missing (tests, local runs): keys,
//! the `board`, `ledger`, `ledger_a` and `ledger_b` GSIs, TTL, and the stream when asked.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType, StreamSpecification, StreamViewType,
};

use super::errors;
use super::store::*;

use crate::error::StoreError;

impl DynamoStore {
    /// Creates the table and its GSI (on-demand) if it does not exist: for DynamoDB
    /// Local and tests. Production tables come from `template.yaml`. Without the
    /// stream: DynamoDB Local writes several times slower with one.
    pub async fn ensure_table(&self) -> Result<(), StoreError> {
        self.create_table(false).await
    }

    /// [`ensure_table`](Self::ensure_table) with the table's stream (new and old
    /// images), as `template.yaml` deploys it: for the `events` function's tests.
    pub async fn ensure_streaming_table(&self) -> Result<(), StoreError> {
        self.create_table(true).await
    }

    pub(crate) async fn create_table(&self, stream: bool) -> Result<(), StoreError> {
        let build = |e| errors::build("CreateTable", e);
        let attr = |name: &str| {
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .map_err(build)
        };
        let key = |name: &str, kind: KeyType| {
            KeySchemaElement::builder()
                .attribute_name(name)
                .key_type(kind)
                .build()
                .map_err(build)
        };
        let gsi = GlobalSecondaryIndex::builder()
            .index_name(BOARD_INDEX)
            .key_schema(key("board_shard", KeyType::Hash)?)
            .key_schema(key("board_key", KeyType::Range)?)
            .projection(
                Projection::builder()
                    .projection_type(ProjectionType::KeysOnly)
                    .build(),
            )
            .build()
            .map_err(build)?;
        let ledger = GlobalSecondaryIndex::builder()
            .index_name(LEDGER_INDEX)
            .key_schema(key("pk", KeyType::Hash)?)
            .key_schema(key("ledger_at", KeyType::Range)?)
            .projection(
                Projection::builder()
                    .projection_type(ProjectionType::Include)
                    .non_key_attributes("entry")
                    .build(),
            )
            .build()
            .map_err(build)?;
        let mut carried = Vec::new();
        for slot in &CARRIED_LEDGER {
            carried.push(
                GlobalSecondaryIndex::builder()
                    .index_name(slot.index)
                    .key_schema(key(slot.pk, KeyType::Hash)?)
                    .key_schema(key(slot.at, KeyType::Range)?)
                    .projection(
                        Projection::builder()
                            .projection_type(ProjectionType::Include)
                            .non_key_attributes(slot.entry)
                            .build(),
                    )
                    .build()
                    .map_err(build)?,
            );
        }
        let mut attributes = vec![
            attr("pk")?,
            attr("sk")?,
            attr("board_shard")?,
            attr("board_key")?,
            attr("ledger_at")?,
        ];
        for slot in &CARRIED_LEDGER {
            attributes.push(attr(slot.pk)?);
            attributes.push(attr(slot.at)?);
        }
        let mut indexes = vec![gsi, ledger];
        indexes.extend(carried);
        let result = self
            .client
            .create_table()
            .table_name(&self.table)
            .billing_mode(BillingMode::PayPerRequest)
            .set_attribute_definitions(Some(attributes))
            .key_schema(key("pk", KeyType::Hash)?)
            .key_schema(key("sk", KeyType::Range)?)
            .set_global_secondary_indexes(Some(indexes))
            // Inbox messages reach EventBridge from the table's stream (`events`).
            .set_stream_specification(
                stream
                    .then(|| {
                        StreamSpecification::builder()
                            .stream_enabled(true)
                            .stream_view_type(StreamViewType::NewAndOldImages)
                            .build()
                            .map_err(build)
                    })
                    .transpose()?,
            )
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_resource_in_use_exception()) =>
            {
                Ok(())
            }
            Err(e) => Err(self.fail("CreateTable", e)),
        }
    }
}
