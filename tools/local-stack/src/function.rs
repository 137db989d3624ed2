//! A function of the local stack: its published versions, each with its binary,
//! environment and instance, and the alias every event source calls.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;

use crate::error::StackError;
use crate::runtime::{Answer, Instance, Launch};
use crate::template::Function;

/// One published version of a function: its binary and environment, and its instance
/// (started at its first invocation, as Lambda starts one; a dead one is replaced at
/// the next).
pub(crate) struct Version {
    pub(crate) binary: PathBuf,
    pub(crate) env: BTreeMap<String, String>,
    pub(crate) instance: tokio::sync::Mutex<Option<std::sync::Arc<Instance>>>,
}

pub(crate) struct Running {
    pub(crate) function: Function,
    pub(crate) name: String,
    /// The environment the template gives the function (version 1's).
    pub(crate) env: BTreeMap<String, String>,
    pub(crate) echo: bool,
    /// The function's timeout, scaled ([`Settings::timeout_scale`]).
    pub(crate) timeout: Duration,
    /// Lambda's init limit (10 s), scaled alike.
    pub(crate) init_limit: Duration,
    /// Version n at index n - 1; never empty.
    pub(crate) versions: std::sync::Mutex<Vec<std::sync::Arc<Version>>>,
    /// The version the alias (`AutoPublishAlias`) points at: the one every event
    /// source, route and direct invoke reaches.
    pub(crate) alias: AtomicUsize,
    /// Held through a deployment: one at a time a function, as CodeDeploy runs one
    /// deployment at a time a deployment group.
    pub(crate) deploying: tokio::sync::Mutex<()>,
}

impl Running {
    async fn start(&self, version: &Version) -> Result<Instance, StackError> {
        Instance::start(Launch {
            name: &self.name,
            binary: &version.binary,
            env: &version.env,
            timeout: self.timeout,
            init_limit: self.init_limit,
            echo: self.echo,
        })
        .await
    }

    /// Version `number`, if published.
    pub(crate) fn version(&self, number: usize) -> Option<std::sync::Arc<Version>> {
        let versions = self.versions.lock().unwrap_or_else(|p| p.into_inner());
        number.checked_sub(1).and_then(|i| versions.get(i).cloned())
    }

    /// The newest version (`$LATEST`).
    pub(crate) fn latest(&self) -> usize {
        self.versions.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// The version the alias points at.
    pub(crate) fn alias_version(&self) -> usize {
        self.alias.load(Ordering::SeqCst)
    }

    /// The live instance of `version`, a new one started (and ready) when there is
    /// none or the last has died.
    async fn instance(&self, version: &Version) -> Result<std::sync::Arc<Instance>, StackError> {
        let mut current = version.instance.lock().await;
        if let Some(i) = current.as_ref().filter(|i| !i.is_dead()) {
            return Ok(i.clone());
        }
        let fresh = self.start(version).await?;
        fresh.ready().await?;
        let fresh = std::sync::Arc::new(fresh);
        *current = Some(fresh.clone());
        Ok(fresh)
    }

    /// One invocation of `version`.
    pub(crate) async fn invoke_version(&self, number: usize, event: &Value) -> Result<Answer, StackError> {
        let version = self.version(number).ok_or_else(|| StackError::Start {
            function: self.name.clone(),
            problem: format!("no version {number}"),
        })?;
        self.instance(&version).await?.invoke(event).await
    }

    /// One invocation through the alias.
    pub(crate) async fn invoke(&self, event: &Value) -> Result<Answer, StackError> {
        self.invoke_version(self.alias_version(), event).await
    }

    /// The alias's name (`AutoPublishAlias`; `current` when the template has none).
    pub(crate) fn alias_name(&self) -> &str {
        self.function.alias.as_deref().unwrap_or("current")
    }

    /// The name Lambda's API knows the function by.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }
}
