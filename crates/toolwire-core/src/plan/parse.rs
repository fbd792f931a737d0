//! Reading and validating a plan's JSON: every field checked, every reference parsed and bound to
//! the step or var it names, implicit dependencies added, cycles refused.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::graph::find_cycle;
use super::refs::{
    find_templates, follow, parse_template, quoted, Names, Reference, Target, Template, TemplateAt,
    MAX_STEP_ID_LEN,
};
use crate::error::{Error, ErrorCode, Result};

/// The most steps a plan may have.
pub const MAX_STEPS: usize = 10_000;
/// The most items a `foreach` list may have.
pub const MAX_FOREACH_ITEMS: usize = 10_000;
/// The most retries a step may ask for.
pub const MAX_RETRIES: u64 = 100;

/// What happens when a step fails (after its retries).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnError {
    /// The plan fails: dependents are skipped, steps in flight finish, no new step starts.
    #[default]
    Fail,
    /// The step is failed, but its dependents run; references to it resolve to `null`.
    Continue,
    /// The step and its dependents are skipped; the plan goes on.
    Skip,
}

/// How often a failed call is tried again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RetryPolicy {
    /// How many retries (attempts = `max + 1`).
    pub max: u32,
    /// The wait before the first retry, in milliseconds; it doubles for each retry after it.
    pub backoff_ms: u64,
}

/// What a `foreach` step iterates over.
#[derive(Clone, Debug, PartialEq)]
pub enum Foreach {
    /// A literal list, taken as it is (its items are not templates).
    Items(Vec<Value>),
    /// A reference to a list, resolved when the step becomes ready.
    Reference(Reference),
}

/// One validated step.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub(crate) id: String,
    pub(crate) tool: String,
    pub(crate) args: Value,
    pub(crate) templates: Vec<TemplateAt>,
    /// Explicit and implicit dependencies, by plan index, without repeats.
    pub(crate) depends_on: Vec<usize>,
    pub(crate) foreach: Option<Foreach>,
    pub(crate) retry: RetryPolicy,
    pub(crate) on_error: OnError,
    pub(crate) capture_as: Option<String>,
    pub(crate) preview: bool,
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) needs_confirmation: bool,
}

impl Step {
    /// The step's id.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// The tool it calls.
    pub fn tool(&self) -> &str {
        &self.tool
    }
    /// Its arguments as written, references unresolved.
    pub fn args(&self) -> &Value {
        &self.args
    }
    /// The plan indexes of the steps it depends on: `dependsOn` plus every step its references
    /// name (`$steps.<id>`, and `$vars.<name>` where a step captures `<name>`).
    pub fn depends_on(&self) -> &[usize] {
        &self.depends_on
    }
    /// What it iterates over, for a `foreach` step.
    pub fn foreach(&self) -> Option<&Foreach> {
        self.foreach.as_ref()
    }
    /// Its retry policy (no retries by default).
    pub fn retry(&self) -> RetryPolicy {
        self.retry
    }
    /// What happens when it fails.
    pub fn on_error(&self) -> OnError {
        self.on_error
    }
    /// The var name its data is also visible under, to the steps that depend on it.
    pub fn capture_as(&self) -> Option<&str> {
        self.capture_as.as_deref()
    }
    /// Whether its calls are previews (passed through to the driver).
    pub fn preview(&self) -> bool {
        self.preview
    }
    /// Its calls' deadline, when it sets one.
    pub fn timeout_ms(&self) -> Option<u64> {
        self.timeout_ms
    }
    /// Whether `confirmationsRequired` names it (or is `true`).
    pub fn needs_confirmation(&self) -> bool {
        self.needs_confirmation
    }
}

/// A validated plan: safe to schedule with [`PlanRun`](super::PlanRun).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub(crate) run_id: Option<String>,
    pub(crate) vars: Map<String, Value>,
    pub(crate) steps: Vec<Step>,
}

const PLAN_FIELDS: &[&str] = &["runId", "vars", "steps", "confirmationsRequired"];
const STEP_FIELDS: &[&str] = &[
    "id",
    "tool",
    "args",
    "dependsOn",
    "foreach",
    "retry",
    "onError",
    "captureAs",
    "preview",
    "timeoutMs",
];

fn invalid(message: impl Into<String>) -> Error {
    Error::caller(ErrorCode::PlanInvalid, message)
}

/// The value as a short text for messages (cut at 80 characters).
fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

/// A whole number >= `min`, or the error naming `path` and the value.
fn whole(value: &Value, path: &str, min: u64) -> Result<u64> {
    let number = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9_007_199_254_740_992.0)
            .map(|f| f as u64)
    });
    match number {
        Some(n) if n >= min => Ok(n),
        _ => Err(invalid(format!(
            "{path} must be a whole number >= {min}, got {}",
            shown(value)
        ))),
    }
}

fn string<'v>(value: &'v Value, path: &str) -> Result<&'v str> {
    value
        .as_str()
        .ok_or_else(|| invalid(format!("{path} must be a string, got {}", shown(value))))
}

fn check_fields(object: &Map<String, Value>, allowed: &[&str], path: &str) -> Result<()> {
    crate::options::check_option_keys(path, object.keys().map(String::as_str), allowed)
        .map_err(|error| invalid(error.message))
}

/// Whether `name` is made of `[A-Za-z0-9_.-]` (with `dots`) or `[A-Za-z0-9_-]`, 1 to 128 long.
fn is_name(name: &str, dots: bool) -> bool {
    (1..=MAX_STEP_ID_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (dots && b == b'.'))
}

struct PlanNames<'p> {
    steps: &'p HashMap<&'p str, usize>,
    captures: &'p HashMap<&'p str, usize>,
}

impl Names for PlanNames<'_> {
    fn step(&self, id: &str) -> Option<usize> {
        self.steps.get(id).copied()
    }
    fn capture(&self, name: &str) -> Option<usize> {
        self.captures.get(name).copied()
    }
}

impl Plan {
    /// Reads and validates a plan. Errors have code `PLAN_INVALID` (`LIMIT_EXCEEDED` past
    /// [`MAX_STEPS`] steps or [`MAX_FOREACH_ITEMS`] literal items) and name the offending path,
    /// step and reference.
    pub fn from_json(value: &Value) -> Result<Plan> {
        let object = value
            .as_object()
            .ok_or_else(|| invalid(format!("plan must be an object, got {}", shown(value))))?;
        check_fields(object, PLAN_FIELDS, "plan")?;
        let run_id = match object.get("runId") {
            None | Some(Value::Null) => None,
            Some(id) => {
                let id = string(id, "plan.runId")?;
                if id.is_empty() {
                    return Err(invalid("plan.runId must not be empty"));
                }
                Some(id.to_string())
            }
        };
        let vars = match object.get("vars") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(vars)) => vars.clone(),
            Some(other) => {
                return Err(invalid(format!(
                    "plan.vars must be an object, got {}",
                    shown(other)
                )))
            }
        };
        let raw_steps = match object.get("steps") {
            Some(Value::Array(steps)) => steps,
            Some(other) => {
                return Err(invalid(format!(
                    "plan.steps must be an array, got {}",
                    shown(other)
                )))
            }
            None => return Err(invalid("plan.steps is missing")),
        };
        if raw_steps.len() > MAX_STEPS {
            return Err(Error::caller(
                ErrorCode::LimitExceeded,
                format!(
                    "plan.steps has {} steps, more than the limit of {MAX_STEPS}",
                    raw_steps.len()
                ),
            ));
        }

        // First pass: ids and captureAs names, so references can bind to any step.
        let mut ids: HashMap<&str, usize> = HashMap::with_capacity(raw_steps.len());
        let mut captures: HashMap<&str, usize> = HashMap::new();
        for (index, raw) in raw_steps.iter().enumerate() {
            let path = format!("plan.steps[{index}]");
            let step = raw
                .as_object()
                .ok_or_else(|| invalid(format!("{path} must be an object, got {}", shown(raw))))?;
            check_fields(step, STEP_FIELDS, &path)?;
            let id = string(
                step.get("id")
                    .ok_or_else(|| invalid(format!("{path}.id is missing")))?,
                &format!("{path}.id"),
            )?;
            if !is_name(id, true) {
                return Err(invalid(format!(
                    "{path}.id must match [A-Za-z0-9_.-]{{1,128}}, got {}",
                    quoted(id)
                )));
            }
            if let Some(first) = ids.insert(id, index) {
                return Err(invalid(format!(
                    "{path}.id {} repeats the id of plan.steps[{first}]",
                    quoted(id)
                )));
            }
            if let Some(name) = step.get("captureAs").filter(|v| !v.is_null()) {
                let name = string(name, &format!("{path}.captureAs"))?;
                if !is_name(name, false) {
                    return Err(invalid(format!(
                        "{path}.captureAs must match [A-Za-z0-9_-]{{1,128}}, got {}",
                        quoted(name)
                    )));
                }
                if vars.contains_key(name) {
                    return Err(invalid(format!(
                        "{path}.captureAs {} is already a plan var",
                        quoted(name)
                    )));
                }
                if let Some(first) = captures.insert(name, index) {
                    return Err(invalid(format!(
                        "{path}.captureAs {} is already captured by plan.steps[{first}]",
                        quoted(name)
                    )));
                }
            }
        }

        let names = PlanNames {
            steps: &ids,
            captures: &captures,
        };
        let confirmations = confirmations(object.get("confirmationsRequired"), &ids)?;
        let mut steps = Vec::with_capacity(raw_steps.len());
        for (index, raw) in raw_steps.iter().enumerate() {
            let mut step = parse_step(index, raw, &names, &vars)?;
            step.needs_confirmation = confirmations.get(index).copied().unwrap_or(false);
            steps.push(step);
        }
        let deps: Vec<&[usize]> = steps.iter().map(|s| s.depends_on.as_slice()).collect();
        if let Some(cycle) = find_cycle(&deps) {
            let named: Vec<String> = cycle.iter().map(|&i| quoted(&steps[i].id)).collect();
            return Err(invalid(format!(
                "plan.steps have a dependency cycle: {} (each depends on the next)",
                named.join(" -> ")
            )));
        }
        Ok(Plan {
            run_id,
            vars,
            steps,
        })
    }

    /// The plan's `runId`, when it names one.
    pub fn run_id(&self) -> Option<&str> {
        self.run_id.as_deref()
    }
    /// The plan's vars.
    pub fn vars(&self) -> &Map<String, Value> {
        &self.vars
    }
    /// The steps, in plan order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }
}

/// `confirmationsRequired`: `true`/`false` for every step, or a list of step ids.
fn confirmations(value: Option<&Value>, ids: &HashMap<&str, usize>) -> Result<Vec<bool>> {
    let mut needed = vec![false; ids.len()];
    match value {
        None | Some(Value::Null) | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => needed.fill(true),
        Some(Value::Array(list)) => {
            for (at, id) in list.iter().enumerate() {
                let path = format!("plan.confirmationsRequired[{at}]");
                let id = string(id, &path)?;
                let index = ids.get(id).ok_or_else(|| {
                    invalid(format!("{path} names an unknown step {}", quoted(id)))
                })?;
                needed[*index] = true;
            }
        }
        Some(other) => {
            return Err(invalid(format!(
                "plan.confirmationsRequired must be a boolean or a list of step ids, got {}",
                shown(other)
            )))
        }
    }
    Ok(needed)
}

fn parse_step(
    index: usize,
    raw: &Value,
    names: &PlanNames<'_>,
    vars: &Map<String, Value>,
) -> Result<Step> {
    let path = format!("plan.steps[{index}]");
    // Shapes were checked by the first pass.
    let object = raw
        .as_object()
        .ok_or_else(|| invalid(format!("{path} must be an object")))?;
    let id = object.get("id").and_then(Value::as_str).unwrap_or_default();
    let field = |name: &str| object.get(name).filter(|v| !v.is_null());
    let at_step = |message: String| invalid(format!("step {}: {message}", quoted(id)));

    let tool = match field("tool") {
        Some(tool) => string(tool, &format!("{path}.tool"))?,
        None => return Err(invalid(format!("{path}.tool is missing"))),
    };
    if tool.is_empty() {
        return Err(invalid(format!("{path}.tool must not be empty")));
    }
    let args = match field("args") {
        None => Value::Object(Map::new()),
        Some(args @ Value::Object(_)) => args.clone(),
        Some(other) => {
            return Err(invalid(format!(
                "{path}.args must be an object, got {}",
                shown(other)
            )))
        }
    };

    let mut depends_on = Vec::new();
    if let Some(list) = field("dependsOn") {
        let list = list.as_array().ok_or_else(|| {
            invalid(format!(
                "{path}.dependsOn must be a list of step ids, got {}",
                shown(list)
            ))
        })?;
        for (at, dep) in list.iter().enumerate() {
            let dep_path = format!("{path}.dependsOn[{at}]");
            let dep = string(dep, &dep_path)?;
            match names.step(dep) {
                Some(dep_index) if dep_index == index => {
                    return Err(invalid(format!(
                        "{dep_path}: step {} depends on itself",
                        quoted(id)
                    )))
                }
                Some(dep_index) => depends_on.push(dep_index),
                None => {
                    return Err(invalid(format!(
                        "{dep_path}: step {} depends on an unknown step {}",
                        quoted(id),
                        quoted(dep)
                    )))
                }
            }
        }
    }

    let foreach = match field("foreach") {
        None => None,
        Some(Value::Array(items)) => {
            if items.len() > MAX_FOREACH_ITEMS {
                return Err(Error::caller(
                    ErrorCode::LimitExceeded,
                    format!(
                        "{path}.foreach: step {} lists {} items, more than the limit of \
                         {MAX_FOREACH_ITEMS}",
                        quoted(id),
                        items.len()
                    ),
                ));
            }
            Some(Foreach::Items(items.clone()))
        }
        Some(Value::String(text)) => match parse_template(text, names).map_err(at_step)? {
            Some(Template::Whole(reference))
                if matches!(reference.target, Target::Step { .. } | Target::Var { .. }) =>
            {
                Some(Foreach::Reference(reference))
            }
            _ => {
                return Err(at_step(format!(
                    "foreach must be a list or one $steps/$vars reference, got {}",
                    quoted(text)
                )))
            }
        },
        Some(other) => {
            return Err(invalid(format!(
                "{path}.foreach must be a list or a reference string, got {}",
                shown(other)
            )))
        }
    };

    let templates = find_templates(&args, names).map_err(at_step)?;
    let mut references: Vec<&Reference> = templates
        .iter()
        .flat_map(|t| t.template.references())
        .collect();
    if let Some(Foreach::Reference(reference)) = &foreach {
        references.push(reference);
    }
    for reference in references {
        match &reference.target {
            Target::Step { step, .. } => {
                if *step == index {
                    return Err(at_step(format!(
                        "reference {reference} is to the step itself"
                    )));
                }
                depends_on.push(*step);
            }
            Target::Var {
                captured_by: Some(step),
                name,
            } => {
                if *step == index {
                    return Err(at_step(format!(
                        "reference {reference} is to the step's own captureAs {}",
                        quoted(name)
                    )));
                }
                depends_on.push(*step);
            }
            Target::Var { name, .. } => match vars.get(name) {
                None => {
                    return Err(at_step(format!(
                        "reference {reference} is to an unknown var {}",
                        quoted(name)
                    )))
                }
                Some(value) => {
                    follow(value, &reference.path).map_err(|problem| {
                        at_step(format!("reference {reference} does not resolve: {problem}"))
                    })?;
                }
            },
            Target::Item | Target::Index => {
                if foreach.is_none() {
                    return Err(at_step(format!(
                        "reference {reference} is outside a foreach (the step has no foreach)"
                    )));
                }
            }
        }
    }
    depends_on.sort_unstable();
    depends_on.dedup();

    let retry = match field("retry") {
        None => RetryPolicy::default(),
        Some(Value::Object(retry)) => {
            check_fields(retry, &["max", "backoffMs"], &format!("{path}.retry"))?;
            let max_path = format!("{path}.retry.max");
            let max = match retry.get("max") {
                Some(max) => whole(max, &max_path, 0)?,
                None => return Err(invalid(format!("{max_path} is missing"))),
            };
            if max > MAX_RETRIES {
                return Err(invalid(format!(
                    "{max_path} must be at most {MAX_RETRIES}, got {max}"
                )));
            }
            let backoff_ms = match retry.get("backoffMs").filter(|v| !v.is_null()) {
                Some(backoff) => whole(backoff, &format!("{path}.retry.backoffMs"), 0)?,
                None => 0,
            };
            RetryPolicy {
                max: max as u32,
                backoff_ms,
            }
        }
        Some(other) => {
            return Err(invalid(format!(
                "{path}.retry must be an object {{ max, backoffMs }}, got {}",
                shown(other)
            )))
        }
    };
    let on_error = match field("onError") {
        None => OnError::Fail,
        Some(mode) => match string(mode, &format!("{path}.onError"))? {
            "fail" => OnError::Fail,
            "continue" => OnError::Continue,
            "skip" => OnError::Skip,
            other => {
                return Err(invalid(format!(
                    "{path}.onError must be \"fail\", \"continue\" or \"skip\", got {}",
                    quoted(other)
                )))
            }
        },
    };
    let capture_as = field("captureAs")
        .and_then(Value::as_str)
        .map(str::to_string);
    let preview = match field("preview") {
        None => false,
        Some(Value::Bool(preview)) => *preview,
        Some(other) => {
            return Err(invalid(format!(
                "{path}.preview must be a boolean, got {}",
                crate::json_text::json_type(other)
            )))
        }
    };
    let timeout_ms = field("timeoutMs")
        .map(|t| whole(t, &format!("{path}.timeoutMs"), 1))
        .transpose()?;
    Ok(Step {
        id: id.to_string(),
        tool: tool.to_string(),
        args,
        templates,
        depends_on,
        foreach,
        retry,
        on_error,
        capture_as,
        preview,
        timeout_ms,
        needs_confirmation: false,
    })
}
