//! `local-stack`: every podium function under a local Lambda Runtime API with the
//! environment `template.yaml` gives it, behind a local HTTP API (JWT authorizer
//! included), fed by the SQS and DynamoDB Streams event source mappings and the
//! `rate(…)` schedules, on DynamoDB Local and a local SQS/EventBridge server (moto).
//! Prints the stack's outputs (as the deployed stack names them) and a player's and
//! an operator's token as JSON, then runs until stopped.
//!
//! ```text
//! cargo build --workspace --bins
//! scripts/dynamodb-local.sh start 8000 && .tools/venv/bin/moto_server -p 5000 &
//! cargo run -p local-stack -- --dynamodb http://127.0.0.1:8000 --moto http://127.0.0.1:5000
//! ```

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use local_stack::gateway::{self, Tokens};
use local_stack::resources::Endpoints;
use local_stack::stack::{Settings, Stack, LOCAL_AUDIENCE, LOCAL_ISSUER};
use local_stack::StackError;
use serde_json::json;

#[derive(Parser)]
#[command(
    version,
    about = "podium's Lambda functions as Lambda runs them, on local servers"
)]
struct Args {
    /// DynamoDB Local's endpoint.
    #[arg(long, env = "LOCAL_STACK_DYNAMODB", value_name = "URL")]
    dynamodb: String,
    /// The SQS and EventBridge server's endpoint (moto in server mode).
    #[arg(long, env = "LOCAL_STACK_MOTO", value_name = "URL")]
    moto: String,
    /// Where the function binaries are.
    #[arg(long, value_name = "DIR", default_value = "target/debug")]
    bin_dir: PathBuf,
    /// The template.
    #[arg(long, value_name = "FILE", default_value = "template.yaml")]
    template: PathBuf,
    /// The HTTP API's port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// A template parameter's value, NAME=VALUE (repeatable).
    #[arg(long = "parameter", value_name = "NAME=VALUE")]
    parameters: Vec<String>,
    /// Also write the outputs (JSON) to this file.
    #[arg(long, value_name = "FILE")]
    outputs: Option<PathBuf>,
    /// Echo the functions' own output.
    #[arg(long)]
    logs: bool,
    /// Multiply every function's timeout and init limit by this (1: Lambda's limits;
    /// builds without optimisations, `target/debug`, run several times slower).
    #[arg(long, env = "LOCAL_STACK_TIMEOUT_SCALE", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    timeout_scale: u32,
}

#[tokio::main]
async fn main() {
    if let Err(e) = run(Args::parse()).await {
        eprintln!("local-stack: {e}");
        std::process::exit(1);
    }
}

async fn run(args: Args) -> Result<(), StackError> {
    let mut settings = Settings::new(
        args.bin_dir.clone(),
        Endpoints {
            dynamodb: args.dynamodb.clone(),
            moto: args.moto.clone(),
        },
    );
    settings.template = args.template.clone();
    settings.echo = args.logs;
    settings.timeout_scale = args.timeout_scale;
    for p in &args.parameters {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| StackError::Template(format!("--parameter {p}: not NAME=VALUE")))?;
        settings.parameters.insert(k.to_string(), v.to_string());
    }
    let issuer = settings
        .parameters
        .get("JwtIssuer")
        .cloned()
        .unwrap_or(LOCAL_ISSUER.into());
    let audience = settings
        .parameters
        .get("JwtAudience")
        .cloned()
        .unwrap_or(LOCAL_AUDIENCE.into());
    let tokens = Tokens::new(&issuer, &audience);
    // Bound first: the functions are told the gateway's URLs (the live feed's).
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
        .await
        .map_err(|e| StackError::Gateway(e.to_string()))?;
    let addr = listener
        .local_addr()
        .map_err(|e| StackError::Gateway(e.to_string()))?;
    settings.with_gateway(addr);
    let stack = Arc::new(Stack::start(settings).await?);
    let api = format!("http://{addr}/");
    let res = stack.resources();
    let reference = |id: &str| res.by_id.get(id).map(|r| r.reference.clone()).unwrap_or_default();
    let outputs = json!({
        "StackName": stack.name(),
        "ApiUrl": api,
        "AdMobCallbackUrl": format!("{api}v1/ad-callbacks/admob"),
        "UnityAdsCallbackUrl": format!("{api}v1/ad-callbacks/unity-ads"),
        "MatchesQueueUrl": reference("MatchesQueue"),
        "MatchesDeadLetterQueueUrl": reference("MatchesDeadLetterQueue"),
        "TableName": reference("PodiumTable"),
        "EventBusName": reference("EventBus"),
        "LiveUrl": format!("ws://{addr}/live"),
        "Region": local_stack::REGION,
        "SqsEndpoint": args.moto,
        "PlayerToken": tokens.issue("local-player", &[], 12 * 3600),
        "OperatorToken": tokens.issue("local-operator", &["podium/operator"], 12 * 3600),
        "Functions": stack.binaries(),
    });
    let text = serde_json::to_string_pretty(&outputs).unwrap_or_default();
    if let Some(path) = &args.outputs {
        std::fs::write(path, &text).map_err(|e| StackError::Gateway(format!("{}: {e}", path.display())))?;
    }
    println!("{text}");

    let (sqs, streams) = stack.polled();
    let pollers = {
        let stack = stack.clone();
        tokio::spawn(async move {
            loop {
                for b in sqs.iter() {
                    if let Err(e) = stack.poll_sqs(b).await {
                        eprintln!("local-stack: SQS source of {b}: {e}");
                    }
                }
                for b in streams.iter() {
                    if let Err(e) = stack.poll_stream(b).await {
                        eprintln!("local-stack: stream source of {b}: {e}");
                    }
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        })
    };
    let mut schedules = Vec::new();
    for (binary, event, every) in stack.rate_schedules() {
        let stack = stack.clone();
        schedules.push(tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                tick.tick().await;
                if let Err(e) = stack.fire_schedule(&binary, &event, chrono::Utc::now()).await {
                    eprintln!("local-stack: schedule {event} of {binary}: {e}");
                }
            }
        }));
    }
    tokio::select! {
        r = gateway::serve(listener, stack.clone(), tokens) => r?,
        _ = tokio::signal::ctrl_c() => {}
    }
    pollers.abort();
    for s in schedules {
        s.abort();
    }
    Ok(())
}
