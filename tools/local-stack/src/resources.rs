//! The template's resources made on the local servers: the DynamoDB table (keys,
//! GSIs, stream and TTL as declared) on DynamoDB Local; queues and event buses on
//! the SQS/EventBridge server; secrets generated in memory. Each stack gets names of
//! its own (`podium-local-<hex>-<LogicalId>`), so stacks can share the servers.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType, StreamSpecification, StreamViewType, TimeToLiveSpecification,
};
use serde_norway::Value;

use crate::error::StackError;
use crate::template::{self, Resolve, Template};

/// One local resource: what `!Ref` and `!GetAtt` give for it.
#[derive(Debug, Clone, Default)]
pub struct Resource {
    /// `!Ref`: a table's or bus's name, a queue's URL, a secret's id.
    pub reference: String,
    /// `!GetAtt` attributes (`Arn`, `StreamArn`, `QueueName`, …).
    pub attributes: BTreeMap<String, String>,
}

/// The local servers and clients for them.
#[derive(Clone)]
pub struct Endpoints {
    /// DynamoDB Local, e.g. `http://127.0.0.1:8000`.
    pub dynamodb: String,
    /// The SQS and EventBridge server (moto), e.g. `http://127.0.0.1:5000`.
    pub moto: String,
}

/// Clients of the local servers.
#[derive(Clone)]
pub struct Clients {
    pub dynamodb: aws_sdk_dynamodb::Client,
    pub streams: aws_sdk_dynamodbstreams::Client,
    pub sqs: aws_sdk_sqs::Client,
    pub eventbridge: aws_sdk_eventbridge::Client,
}

/// The credentials every local client and function uses.
pub const ACCESS_KEY: &str = "local";
/// See [`ACCESS_KEY`].
pub const SECRET_KEY: &str = "local";

async fn config(endpoint: &str) -> aws_config::SdkConfig {
    aws_config::defaults(aws_config::BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .http_client(podium_store::aws::new_https_client())
        .region(aws_config::Region::new(crate::REGION))
        .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
            ACCESS_KEY,
            SECRET_KEY,
            None,
            None,
            "local-stack",
        ))
        .timeout_config(
            aws_config::timeout::TimeoutConfig::builder()
                .connect_timeout(std::time::Duration::from_secs(2))
                .operation_timeout(std::time::Duration::from_secs(20))
                .build(),
        )
        .load()
        .await
}

impl Clients {
    /// Clients of `endpoints`.
    pub async fn new(endpoints: &Endpoints) -> Clients {
        let ddb = config(&endpoints.dynamodb).await;
        let moto = config(&endpoints.moto).await;
        Clients {
            dynamodb: aws_sdk_dynamodb::Client::new(&ddb),
            streams: aws_sdk_dynamodbstreams::Client::new(&ddb),
            sqs: aws_sdk_sqs::Client::new(&moto),
            eventbridge: aws_sdk_eventbridge::Client::new(&moto),
        }
    }
}

/// The local resources of one stack, by logical id.
#[derive(Debug, Clone, Default)]
pub struct Resources {
    pub stack_name: String,
    pub by_id: BTreeMap<String, Resource>,
    pub secrets: BTreeMap<String, String>,
    pub parameters: BTreeMap<String, String>,
}

impl Resolve for Resources {
    fn reference(&self, id: &str) -> Option<String> {
        self.by_id.get(id).map(|r| r.reference.clone())
    }
    fn attribute(&self, id: &str, attribute: &str) -> Option<String> {
        self.by_id
            .get(id)
            .and_then(|r| r.attributes.get(attribute).cloned())
    }
    fn secret(&self, id: &str) -> Option<String> {
        self.secrets.get(id).cloned()
    }
    fn stack_name(&self) -> String {
        self.stack_name.clone()
    }
}

fn text<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn list<'a>(v: &'a Value, k: &str) -> &'a [Value] {
    v.get(k)
        .and_then(Value::as_sequence)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn key_schema(v: &Value) -> Result<Vec<KeySchemaElement>, StackError> {
    list(v, "KeySchema")
        .iter()
        .map(|k| {
            KeySchemaElement::builder()
                .attribute_name(text(k, "AttributeName").unwrap_or_default())
                .key_type(KeyType::from(text(k, "KeyType").unwrap_or_default()))
                .build()
                .map_err(|e| StackError::Template(format!("KeySchema: {e}")))
        })
        .collect()
}

/// Creates `props` (an `AWS::DynamoDB::Table`'s properties) as `name`: its attribute
/// definitions, key schema, GSIs with their projections, stream and TTL.
async fn create_table(c: &Clients, name: &str, props: &Value) -> Result<Resource, StackError> {
    let mut req = c
        .dynamodb
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .set_key_schema(Some(key_schema(props)?));
    for a in list(props, "AttributeDefinitions") {
        req = req.attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(text(a, "AttributeName").unwrap_or_default())
                .attribute_type(ScalarAttributeType::from(
                    text(a, "AttributeType").unwrap_or_default(),
                ))
                .build()
                .map_err(|e| StackError::Template(format!("AttributeDefinitions: {e}")))?,
        );
    }
    for g in list(props, "GlobalSecondaryIndexes") {
        let p = g.get("Projection").cloned().unwrap_or(Value::Null);
        let projection = Projection::builder()
            .projection_type(ProjectionType::from(text(&p, "ProjectionType").unwrap_or("ALL")))
            .set_non_key_attributes(
                p.get("NonKeyAttributes")
                    .and_then(Value::as_sequence)
                    .map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect()),
            )
            .build();
        req = req.global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(text(g, "IndexName").unwrap_or_default())
                .set_key_schema(Some(key_schema(g)?))
                .projection(projection)
                .build()
                .map_err(|e| StackError::Template(format!("GlobalSecondaryIndexes: {e}")))?,
        );
    }
    if let Some(view) = props
        .get("StreamSpecification")
        .and_then(|s| text(s, "StreamViewType"))
    {
        req = req.stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::from(view))
                .build()
                .map_err(|e| StackError::Template(format!("StreamSpecification: {e}")))?,
        );
    }
    let created = req.send().await.map_err(|e| StackError::aws("dynamodb", e))?;
    if let Some(ttl) = props.get("TimeToLiveSpecification") {
        if ttl.get("Enabled").and_then(Value::as_bool) == Some(true) {
            c.dynamodb
                .update_time_to_live()
                .table_name(name)
                .time_to_live_specification(
                    TimeToLiveSpecification::builder()
                        .attribute_name(text(ttl, "AttributeName").unwrap_or_default())
                        .enabled(true)
                        .build()
                        .map_err(|e| StackError::Template(format!("TimeToLiveSpecification: {e}")))?,
                )
                .send()
                .await
                .map_err(|e| StackError::aws("dynamodb", e))?;
        }
    }
    let table = created.table_description();
    let mut attributes = BTreeMap::new();
    attributes.insert(
        "Arn".into(),
        table.and_then(|t| t.table_arn()).unwrap_or_default().to_string(),
    );
    if let Some(stream) = table.and_then(|t| t.latest_stream_arn()) {
        attributes.insert("StreamArn".into(), stream.to_string());
    }
    Ok(Resource {
        reference: name.to_string(),
        attributes,
    })
}

/// Creates the queue `name` with the template's `VisibilityTimeout`,
/// `MessageRetentionPeriod`, `DelaySeconds` and `ReceiveMessageWaitTimeSeconds`
/// (its `RedrivePolicy` is set once every queue exists: [`create`]).
async fn create_queue(c: &Clients, name: &str, props: &Value) -> Result<Resource, StackError> {
    use aws_sdk_sqs::types::QueueAttributeName as A;
    let mut req = c.sqs.create_queue().queue_name(name);
    for (key, attr) in [
        ("VisibilityTimeout", A::VisibilityTimeout),
        ("MessageRetentionPeriod", A::MessageRetentionPeriod),
        ("DelaySeconds", A::DelaySeconds),
        ("ReceiveMessageWaitTimeSeconds", A::ReceiveMessageWaitTimeSeconds),
    ] {
        if let Some(v) = props
            .get(key)
            .and_then(|v| v.as_u64().map(|n| n.to_string()).or(v.as_str().map(String::from)))
        {
            req = req.attributes(attr, v);
        }
    }
    let url = req
        .send()
        .await
        .map_err(|e| StackError::aws("sqs", e))?
        .queue_url
        .unwrap_or_default();
    let arn = format!("arn:aws:sqs:{}:{}:{name}", crate::REGION, crate::ACCOUNT);
    Ok(Resource {
        reference: url,
        attributes: BTreeMap::from([("Arn".into(), arn), ("QueueName".into(), name.to_string())]),
    })
}

async fn create_bus(c: &Clients, name: &str) -> Result<Resource, StackError> {
    let arn = c
        .eventbridge
        .create_event_bus()
        .name(name)
        .send()
        .await
        .map_err(|e| StackError::aws("eventbridge", e))?
        .event_bus_arn
        .unwrap_or_default();
    Ok(Resource {
        reference: name.to_string(),
        attributes: BTreeMap::from([("Arn".into(), arn), ("Name".into(), name.to_string())]),
    })
}

/// A `GenerateSecretString` value: `PasswordLength` (default 32) characters,
/// letters and digits when `ExcludePunctuation`.
fn generate_secret(props: &Value) -> String {
    use rand::Rng;
    let spec = props.get("GenerateSecretString").cloned().unwrap_or(Value::Null);
    let len = spec.get("PasswordLength").and_then(Value::as_u64).unwrap_or(32) as usize;
    let alphabet: &[u8] = if spec.get("ExcludePunctuation").and_then(Value::as_bool) == Some(true) {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&()*+,-./:;<=>?@[]^_{|}~"
    };
    let mut rng = rand::rng();
    (0..len)
        .map(|_| alphabet[rng.random_range(0..alphabet.len())] as char)
        .collect()
}

/// Creates every resource of `template` the local stack emulates (tables, queues,
/// event buses, secrets) under `stack_name`, with `parameters` resolved.
pub async fn create(
    c: &Clients,
    template: &Template,
    stack_name: &str,
    parameters: BTreeMap<String, String>,
) -> Result<Resources, StackError> {
    let mut res = Resources {
        stack_name: stack_name.to_string(),
        parameters,
        ..Default::default()
    };
    for (id, kind, props) in template.resources() {
        let name = format!("{stack_name}-{id}");
        let made = match kind.as_str() {
            "AWS::DynamoDB::Table" => create_table(c, &name, &props).await?,
            "AWS::SQS::Queue" => create_queue(c, &name, &props).await?,
            "AWS::Events::EventBus" => {
                let bus_name = match props.get("Name") {
                    Some(v) => template::resolve(v, &res.parameters, &res)?,
                    None => name,
                };
                create_bus(c, &bus_name).await?
            }
            "AWS::SecretsManager::Secret" => {
                res.secrets.insert(name.clone(), generate_secret(&props));
                Resource {
                    reference: name,
                    attributes: BTreeMap::new(),
                }
            }
            // The live feed's WebSocket API: served by the local gateway
            // ([`crate::websocket`]); its id names it in the URLs the template builds,
            // which the local stack replaces with the gateway's own.
            "AWS::ApiGatewayV2::Api" => Resource {
                reference: format!("{}-local", id.to_lowercase()),
                attributes: BTreeMap::new(),
            },
            _ => continue,
        };
        res.by_id.insert(id, made);
    }
    // Redrive policies name other queues: set once every queue exists.
    for (id, kind, props) in template.resources() {
        let Some(policy) = props.get("RedrivePolicy").filter(|_| kind == "AWS::SQS::Queue") else {
            continue;
        };
        let target = policy
            .get("deadLetterTargetArn")
            .ok_or_else(|| StackError::Template(format!("{id}.RedrivePolicy: no deadLetterTargetArn")))?;
        let arn = template::resolve(target, &res.parameters, &res)?;
        let max = policy
            .get("maxReceiveCount")
            .map(|v| template::resolve(v, &res.parameters, &res))
            .transpose()?
            .unwrap_or_else(|| "10".into());
        let json = serde_json::json!({"deadLetterTargetArn": arn, "maxReceiveCount": max}).to_string();
        c.sqs
            .set_queue_attributes()
            .queue_url(res.by_id[&id].reference.clone())
            .attributes(aws_sdk_sqs::types::QueueAttributeName::RedrivePolicy, json)
            .send()
            .await
            .map_err(|e| StackError::aws("sqs", e))?;
    }
    Ok(res)
}
