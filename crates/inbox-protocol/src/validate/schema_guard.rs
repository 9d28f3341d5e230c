//! What a schema must satisfy before anything compiles it or validates against it.
//!
//! A JSON Schema is a program an asker hands the server (and every reviewer's window), and some
//! programs never finish: a `$ref` chain that comes back to where it started without stepping
//! into the answer (`$defs.a = {"allOf": [{"$ref": "#/$defs/a"}]}`) makes a validator recurse
//! forever, and references that fan out (`{"allOf": [B, B]}`, `B = {"allOf": [C, C]}`, ...) make
//! it do exponential work on a tiny answer. Neither is needed by a real form, and both are
//! decided here, from the schema alone, before it is stored:
//!
//! - the document's size in nodes and its nesting depth are bounded;
//! - `pattern`s and `patternProperties` keys are counted, bounded in length and must compile on
//!   the linear-time `regex` engine (which is also the engine answers are validated with);
//! - every `$ref` resolves inside the schema (nothing is fetched);
//! - no cycle of references stays at one place in the answer — recursion must pass through a
//!   property or an item, so the answer's own finite depth ends it (trees, JSON-e, JSON Logic);
//! - the number of subschemas that can apply at any one place in an answer, as deep as an
//!   answer may nest ([`ANSWER_MAX_DEPTH`]), stays under [`SCHEMA_MAX_APPLICATIONS`].
//!
//! The last check is an upper bound computed over the reference graph: at each depth it takes,
//! node by node, the most applications any one child (an item, or a property of one name) could
//! receive. It accepts the recursive schemas people write, whose recursion is one reference per
//! step, and refuses the ones whose work multiplies with depth.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};
use url::Url;

use super::check_cap;
use crate::caps::{
    ANSWER_MAX_DEPTH, SCHEMA_MAX_APPLICATIONS, SCHEMA_MAX_DEPTH, SCHEMA_MAX_NODES,
    SCHEMA_MAX_PATTERNS, SCHEMA_PATTERN_MAX_CHARS,
};
use crate::error::{ErrorCode, ValidationError};

/// Subschemas applied to the same place in the answer as the schema that holds them.
const IN_PLACE_ONE: &[&str] = &["not", "if", "then", "else"];
const IN_PLACE_MANY: &[&str] = &["allOf", "anyOf", "oneOf"];
const IN_PLACE_MAP: &[&str] = &["dependentSchemas", "dependencies"];
/// Subschemas applied to the array's items.
const ITEM_ONE: &[&str] = &["additionalItems", "unevaluatedItems", "contains"];
/// Subschemas applied to property values whatever the property's name.
const ANY_PROPERTY_ONE: &[&str] = &["unevaluatedProperties"];
/// Subschemas only referred to, never applied by position.
const CONTAINERS: &[&str] = &["$defs", "definitions"];
const REFERENCES: &[&str] = &["$ref", "$dynamicRef", "$recursiveRef"];

/// Refuse a schema that cannot be validated safely, naming where in it the problem is
/// (`schema.$defs.a.allOf[0].$ref`).
pub(super) fn check_schema_safety(schema: &Value) -> Result<(), ValidationError> {
    check_document(schema)?;
    let graph = Graph::build(schema)?;
    let order = graph.in_place_order()?;
    graph.check_applications(&order)
}

fn refuse(field: String, message: String) -> ValidationError {
    ValidationError::new(ErrorCode::InvalidField, field, message)
}

/// A JSON Pointer (`/$defs/a/allOf/0`) as a field of the ask (`schema.$defs.a.allOf[0]`).
fn field_of(pointer: &str) -> String {
    let mut field = String::from("schema");
    for raw in pointer.split('/').skip(1) {
        let token = raw.replace("~1", "/").replace("~0", "~");
        if !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()) {
            field.push('[');
            field.push_str(&token);
            field.push(']');
        } else {
            field.push('.');
            field.push_str(&token);
        }
    }
    field
}

fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

// ---- the document: size, depth, patterns -------------------------------------------------

fn check_document(schema: &Value) -> Result<(), ValidationError> {
    let mut nodes = 0usize;
    let mut patterns = 0usize;
    // An explicit stack: the depth check must not itself recurse on a deep document.
    let mut stack: Vec<(&Value, String, usize)> = vec![(schema, String::new(), 0)];
    while let Some((value, pointer, depth)) = stack.pop() {
        nodes += 1;
        if nodes > SCHEMA_MAX_NODES {
            return Err(refuse(
                "schema".to_owned(),
                format!("has more than {SCHEMA_MAX_NODES} JSON values; simplify it"),
            ));
        }
        if depth > SCHEMA_MAX_DEPTH {
            return Err(refuse(
                field_of(&pointer),
                format!("nests deeper than {SCHEMA_MAX_DEPTH} levels"),
            ));
        }
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    let child_pointer = format!("{pointer}/{}", escape_token(key));
                    if key == "pattern"
                        && let Value::String(pattern) = child
                    {
                        patterns += 1;
                        check_pattern(pattern, &child_pointer)?;
                    }
                    if key == "patternProperties"
                        && let Value::Object(by_pattern) = child
                    {
                        for pattern in by_pattern.keys() {
                            patterns += 1;
                            let at = format!("{child_pointer}/{}", escape_token(pattern));
                            check_pattern(pattern, &at)?;
                        }
                    }
                    if patterns > SCHEMA_MAX_PATTERNS {
                        return Err(refuse(
                            field_of(&child_pointer),
                            format!("the schema holds more than {SCHEMA_MAX_PATTERNS} patterns"),
                        ));
                    }
                    stack.push((child, child_pointer, depth + 1));
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    stack.push((child, format!("{pointer}/{i}"), depth + 1));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A pattern must be short and run on the linear-time engine: no lookaround, no
/// backreferences, so no input can make it backtrack.
fn check_pattern(pattern: &str, pointer: &str) -> Result<(), ValidationError> {
    check_cap(
        pattern.chars().count(),
        SCHEMA_PATTERN_MAX_CHARS,
        &field_of(pointer),
        ErrorCode::InvalidField,
        ("is a pattern of", "characters"),
    )?;
    super::form::pattern_engine_accepts(pattern).map_err(|reason| {
        refuse(
            field_of(pointer),
            format!(
                "is a pattern the linear-time engine cannot run ({reason}); lookaround and \
                 backreferences are not supported"
            ),
        )
    })
}

// ---- the reference graph -----------------------------------------------------------------

/// How a subschema is applied, relative to the place in the answer its parent applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The same place (`allOf`, `$ref`, ...).
    InPlace,
    /// Each item of an array.
    Item,
    /// The value of the property of this name (`properties`).
    Property(usize),
    /// The value of any property (`patternProperties`, `unevaluatedProperties`).
    AnyProperty,
    /// The value of any property its own schema does not list in `properties`
    /// (`additionalProperties`).
    OtherProperty,
    /// Each property name, as a string (`propertyNames`).
    PropertyName,
    /// Not applied by position at all, only held for references (`$defs`). Followed so that
    /// every definition is checked, referenced or not.
    Defined,
}

struct Edge {
    to: usize,
    step: Step,
    /// Where the edge is written, for the refusal.
    at: String,
}

struct Node<'a> {
    value: &'a Value,
    pointer: String,
    base: Url,
    edges: Vec<Edge>,
    /// The property names (as indices) its own `properties` lists: its
    /// `additionalProperties` does not apply to them.
    listed: Vec<usize>,
}

struct Graph<'a> {
    root: &'a Value,
    nodes: Vec<Node<'a>>,
    by_pointer: HashMap<String, usize>,
    /// Schema resources by their `$id` (no fragment): the pointer of the resource root.
    resources: HashMap<Url, String>,
    /// `$anchor`, `$dynamicAnchor` and legacy `"$id": "#name"`: resource + name → pointer.
    anchors: HashMap<(Url, String), String>,
    /// Nodes carrying `$recursiveAnchor: true` or any `$dynamicAnchor` of a name.
    dynamic_anchors: HashMap<String, Vec<String>>,
    recursive_anchors: Vec<String>,
    property_names: HashMap<String, usize>,
}

fn root_base() -> Url {
    // Only the shape of the URL matters: relative `$id`s and `$ref`s join onto it.
    Url::parse("https://schema.inbox.invalid/root.json").expect("a valid URL")
}

fn id_of(map: &Map<String, Value>) -> Option<&str> {
    map.get("$id")
        .or_else(|| map.get("id").filter(|v| v.is_string()))
        .and_then(Value::as_str)
}

fn without_fragment(url: &Url) -> Url {
    let mut url = url.clone();
    url.set_fragment(None);
    url
}

impl<'a> Graph<'a> {
    fn build(root: &'a Value) -> Result<Self, ValidationError> {
        let mut graph = Graph {
            root,
            nodes: Vec::new(),
            by_pointer: HashMap::new(),
            resources: HashMap::new(),
            anchors: HashMap::new(),
            dynamic_anchors: HashMap::new(),
            recursive_anchors: Vec::new(),
            property_names: HashMap::new(),
        };
        graph.collect_identifiers(root, String::new(), root_base());
        let first = graph.node(root, String::new(), root_base());
        let mut next = first;
        while next < graph.nodes.len() {
            graph.link(next)?;
            next += 1;
        }
        Ok(graph)
    }

    /// First pass: every `$id` and anchor, so references can be resolved in any order.
    fn collect_identifiers(&mut self, value: &'a Value, pointer: String, base: Url) {
        let mut stack = vec![(value, pointer, base)];
        while let Some((value, pointer, mut base)) = stack.pop() {
            let Value::Object(map) = value else {
                if let Value::Array(items) = value {
                    for (i, child) in items.iter().enumerate() {
                        stack.push((child, format!("{pointer}/{i}"), base.clone()));
                    }
                }
                continue;
            };
            if let Some(id) = id_of(map) {
                if let Some(name) = id.strip_prefix('#') {
                    self.anchors
                        .insert((without_fragment(&base), name.to_owned()), pointer.clone());
                } else if let Ok(joined) = base.join(id) {
                    base = without_fragment(&joined);
                    self.resources.insert(base.clone(), pointer.clone());
                }
            }
            if pointer.is_empty() {
                self.resources.entry(without_fragment(&base)).or_default();
            }
            for key in ["$anchor", "$dynamicAnchor"] {
                if let Some(name) = map.get(key).and_then(Value::as_str) {
                    self.anchors
                        .insert((without_fragment(&base), name.to_owned()), pointer.clone());
                }
            }
            if let Some(name) = map.get("$dynamicAnchor").and_then(Value::as_str) {
                self.dynamic_anchors
                    .entry(name.to_owned())
                    .or_default()
                    .push(pointer.clone());
            }
            if map.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
                self.recursive_anchors.push(pointer.clone());
            }
            for (key, child) in map {
                stack.push((
                    child,
                    format!("{pointer}/{}", escape_token(key)),
                    base.clone(),
                ));
            }
        }
    }

    fn node(&mut self, value: &'a Value, pointer: String, base: Url) -> usize {
        if let Some(&index) = self.by_pointer.get(&pointer) {
            return index;
        }
        let index = self.nodes.len();
        self.by_pointer.insert(pointer.clone(), index);
        self.nodes.push(Node {
            value,
            pointer,
            base,
            edges: Vec::new(),
            listed: Vec::new(),
        });
        index
    }

    fn property_index(&mut self, name: &str) -> usize {
        let next = self.property_names.len();
        *self.property_names.entry(name.to_owned()).or_insert(next)
    }

    /// Second pass, node by node: the subschemas a schema applies and the targets of its
    /// references.
    fn link(&mut self, index: usize) -> Result<(), ValidationError> {
        let Value::Object(map) = self.nodes[index].value else {
            return Ok(()); // `true` / `false`
        };
        let pointer = self.nodes[index].pointer.clone();
        let mut base = self.nodes[index].base.clone();
        if let Some(id) = id_of(map).filter(|id| !id.starts_with('#'))
            && let Ok(joined) = base.join(id)
        {
            base = without_fragment(&joined);
        }
        let mut edges: Vec<(&'a Value, String, Step)> = Vec::new();
        let at = |key: &str| format!("{pointer}/{}", escape_token(key));
        for (key, child) in map {
            let key = key.as_str();
            let here = at(key);
            let one = |step| vec![(child, here.clone(), step)];
            let many = |step| match child {
                Value::Array(items) => items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| (item, format!("{here}/{i}"), step))
                    .collect(),
                _ => Vec::new(),
            };
            let found: Vec<(&'a Value, String, Step)> = if IN_PLACE_ONE.contains(&key) {
                one(Step::InPlace)
            } else if IN_PLACE_MANY.contains(&key) {
                many(Step::InPlace)
            } else if IN_PLACE_MAP.contains(&key) || CONTAINERS.contains(&key) {
                let step = if CONTAINERS.contains(&key) {
                    Step::Defined
                } else {
                    Step::InPlace
                };
                match child {
                    Value::Object(entries) => entries
                        .iter()
                        // `dependencies` also takes arrays of names; only schemas apply.
                        .filter(|(_, v)| v.is_object() || v.is_boolean())
                        .map(|(k, v)| (v, format!("{here}/{}", escape_token(k)), step))
                        .collect(),
                    _ => Vec::new(),
                }
            } else if key == "prefixItems" || (key == "items" && child.is_array()) {
                many(Step::Item)
            } else if key == "items" || ITEM_ONE.contains(&key) {
                one(Step::Item)
            } else if ANY_PROPERTY_ONE.contains(&key) {
                one(Step::AnyProperty)
            } else if key == "additionalProperties" {
                one(Step::OtherProperty)
            } else if key == "propertyNames" {
                one(Step::PropertyName)
            } else if key == "patternProperties" || key == "properties" {
                match child {
                    Value::Object(entries) => entries
                        .iter()
                        .map(|(name, v)| {
                            let step = if key == "properties" {
                                Step::Property(self.property_index(name))
                            } else {
                                Step::AnyProperty
                            };
                            (v, format!("{here}/{}", escape_token(name)), step)
                        })
                        .collect(),
                    _ => Vec::new(),
                }
            } else {
                Vec::new()
            };
            edges.extend(
                found
                    .into_iter()
                    .filter(|(v, _, _)| v.is_object() || v.is_boolean()),
            );
        }
        let mut linked = Vec::with_capacity(edges.len());
        for (value, child_pointer, step) in edges {
            let to = self.node(value, child_pointer.clone(), base.clone());
            linked.push(Edge {
                to,
                step,
                at: child_pointer,
            });
        }
        for key in REFERENCES {
            let Some(reference) = map.get(*key).and_then(Value::as_str) else {
                continue;
            };
            let here = at(key);
            for target in self.resolve(key, reference, &base, &here)? {
                let value = self.value_at(&target, &here)?;
                let to = self.node(value, target, base.clone());
                linked.push(Edge {
                    to,
                    step: Step::InPlace,
                    at: here.clone(),
                });
            }
        }
        self.nodes[index].listed = linked
            .iter()
            .filter_map(|e| match e.step {
                Step::Property(p) => Some(p),
                _ => None,
            })
            .collect();
        self.nodes[index].edges = linked;
        Ok(())
    }

    /// The pointers a reference may lead to. `$dynamicRef` and `$recursiveRef` may land on any
    /// matching anchor, so every one counts.
    fn resolve(
        &self,
        keyword: &str,
        reference: &str,
        base: &Url,
        at: &str,
    ) -> Result<Vec<String>, ValidationError> {
        let unresolvable = || {
            refuse(
                field_of(at),
                format!(
                    "`{reference}` does not resolve inside the schema; only references to the \
                     schema's own definitions are allowed"
                ),
            )
        };
        if keyword == "$recursiveRef" {
            let mut targets = vec![String::new()];
            targets.extend(self.recursive_anchors.iter().cloned());
            return Ok(targets);
        }
        let url = base.join(reference).map_err(|_| unresolvable())?;
        let resource = self
            .resources
            .get(&without_fragment(&url))
            .ok_or_else(unresolvable)?;
        let fragment = url.fragment().unwrap_or("");
        let fragment = percent_decode(fragment);
        let mut targets = Vec::new();
        if fragment.is_empty() {
            targets.push(resource.clone());
        } else if fragment.starts_with('/') {
            targets.push(format!("{resource}{fragment}"));
        } else {
            if let Some(found) = self
                .anchors
                .get(&(without_fragment(&url), fragment.clone()))
            {
                targets.push(found.clone());
            }
            if keyword == "$dynamicRef"
                && let Some(dynamic) = self.dynamic_anchors.get(&fragment)
            {
                targets.extend(dynamic.iter().cloned());
            }
            if targets.is_empty() {
                return Err(unresolvable());
            }
        }
        Ok(targets)
    }

    fn value_at(&self, pointer: &str, at: &str) -> Result<&'a Value, ValidationError> {
        self.root
            .pointer(pointer)
            .filter(|v| v.is_object() || v.is_boolean())
            .ok_or_else(|| {
                refuse(
                    field_of(at),
                    format!("refers to `#{pointer}`, which is not a schema in this document"),
                )
            })
    }

    /// The nodes in an order where every in-place edge goes forward, or the reference that
    /// closes a cycle staying at one place in the answer.
    fn in_place_order(&self) -> Result<Vec<usize>, ValidationError> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        let in_place: Vec<Vec<&Edge>> = self
            .nodes
            .iter()
            .map(|n| n.edges.iter().filter(|e| e.step == Step::InPlace).collect())
            .collect();
        let mut mark = vec![Mark::New; self.nodes.len()];
        let mut order = Vec::with_capacity(self.nodes.len());
        for start in 0..self.nodes.len() {
            if mark[start] != Mark::New {
                continue;
            }
            // Iterative depth-first search: (node, next edge to look at).
            let mut stack = vec![(start, 0usize)];
            mark[start] = Mark::Open;
            while let Some((node, edge)) = stack.last_mut() {
                let node = *node;
                if let Some(next) = in_place[node].get(*edge) {
                    *edge += 1;
                    match mark[next.to] {
                        Mark::New => {
                            mark[next.to] = Mark::Open;
                            stack.push((next.to, 0));
                        }
                        Mark::Open => {
                            return Err(refuse(
                                field_of(&next.at),
                                format!(
                                    "leads back to `#{}` without passing through a property or \
                                     an item, so validating it would never end",
                                    self.nodes[next.to].pointer
                                ),
                            ));
                        }
                        Mark::Done => {}
                    }
                } else {
                    mark[node] = Mark::Done;
                    order.push(node);
                    stack.pop();
                }
            }
        }
        // Post-order puts children first; parents must come first to push counts down.
        order.reverse();
        Ok(order)
    }

    /// Bound the subschemas applied at any one place in an answer up to [`ANSWER_MAX_DEPTH`].
    fn check_applications(&self, order: &[usize]) -> Result<(), ValidationError> {
        let mut rank = vec![0usize; self.nodes.len()];
        for (position, &node) in order.iter().enumerate() {
            rank[node] = position;
        }
        let mut work = 0u64;
        let mut applied = self.closure(&Counts::from([(0, 1)]), &rank, &mut work, 0)?;
        for depth in 1..=ANSWER_MAX_DEPTH {
            // What reaches one child, by how it is reached: an item, any property, each named
            // property, a property name. `additionalProperties` reaches every name its own
            // schema does not list, so it is counted for all and taken back per listed name.
            let mut item = Counts::new();
            let mut any_property = Counts::new();
            let mut name = Counts::new();
            let mut named: HashMap<usize, Counts> = HashMap::new();
            let mut not_listed: HashMap<usize, Counts> = HashMap::new();
            for (&node, &count) in &applied {
                for edge in &self.nodes[node].edges {
                    let counts = match edge.step {
                        Step::InPlace | Step::Defined => continue,
                        Step::Item => &mut item,
                        Step::AnyProperty | Step::OtherProperty => &mut any_property,
                        Step::PropertyName => &mut name,
                        Step::Property(p) => named.entry(p).or_default(),
                    };
                    add(counts, edge.to, count);
                    if edge.step == Step::OtherProperty {
                        for &p in &self.nodes[node].listed {
                            add(not_listed.entry(p).or_default(), edge.to, count);
                        }
                    }
                }
            }
            if item.is_empty() && any_property.is_empty() && name.is_empty() && named.is_empty() {
                return Ok(());
            }
            // One child receives one of these; the next level is bounded by their maximum,
            // node by node, which over-counts but never under-counts.
            let mut next = Counts::new();
            let mut merge = |counts: Counts| {
                for (node, count) in counts {
                    let slot = next.entry(node).or_insert(0);
                    *slot = (*slot).max(count);
                }
            };
            merge(self.closure(&item, &rank, &mut work, depth)?);
            merge(self.closure(&name, &rank, &mut work, depth)?);
            // A property no schema lists.
            merge(self.closure(&any_property, &rank, &mut work, depth)?);
            for (p, direct) in named {
                let mut reaching = direct;
                let taken_back = not_listed.remove(&p).unwrap_or_default();
                for (&node, &count) in &any_property {
                    let count = count.saturating_sub(taken_back.get(&node).copied().unwrap_or(0));
                    if count > 0 {
                        add(&mut reaching, node, count);
                    }
                }
                merge(self.closure(&reaching, &rank, &mut work, depth)?);
            }
            if next == applied {
                return Ok(()); // a fixed point: deeper levels look the same
            }
            applied = next;
        }
        Ok(())
    }

    /// Everything that applies at one place, given what applies there directly: counts pushed
    /// along in-place edges in topological order, so each node is settled once.
    fn closure(
        &self,
        direct: &Counts,
        rank: &[usize],
        work: &mut u64,
        depth: usize,
    ) -> Result<Counts, ValidationError> {
        let mut pending: BTreeMap<usize, (usize, u64)> = direct
            .iter()
            .map(|(&node, &count)| (rank[node], (node, count)))
            .collect();
        let mut settled = Counts::new();
        let mut total = 0u64;
        while let Some((_, (node, count))) = pending.pop_first() {
            total = total.saturating_add(count);
            *work += 1;
            if total > SCHEMA_MAX_APPLICATIONS || *work > SCHEMA_CHECK_WORK {
                let place = if depth == 0 {
                    "the answer itself".to_owned()
                } else {
                    format!("a value nested {depth} levels into the answer")
                };
                return Err(refuse(
                    "schema".to_owned(),
                    format!(
                        "its references multiply: more than {SCHEMA_MAX_APPLICATIONS} \
                         subschemas would apply to {place}"
                    ),
                ));
            }
            settled.insert(node, count);
            for edge in self.nodes[node]
                .edges
                .iter()
                .filter(|e| e.step == Step::InPlace)
            {
                let slot = pending.entry(rank[edge.to]).or_insert((edge.to, 0));
                slot.1 = slot.1.saturating_add(count);
            }
        }
        Ok(settled)
    }
}

/// How many times each node applies at one place in an answer.
type Counts = HashMap<usize, u64>;

fn add(counts: &mut Counts, node: usize, count: u64) {
    let slot = counts.entry(node).or_insert(0);
    *slot = slot.saturating_add(count);
}

/// Steps the application bound may take before it gives up and refuses the schema.
const SCHEMA_CHECK_WORK: u64 = 5_000_000;

fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refused_at(schema: Value) -> String {
        let err = check_schema_safety(&schema).expect_err("the schema is refused");
        err.field.clone()
    }

    #[test]
    fn recursive_schemas_people_write_pass() {
        let cases = [
            // A tree: recursion through an item of a property.
            json!({"type": "object", "properties": {"name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#"}}}}),
            // JSON-e style: a `oneOf` whose branches refer to the root.
            json!({"oneOf": [
                {"type": "object", "additionalProperties": {"$ref": "#"}},
                {"type": "array", "items": {"$ref": "#"}},
                {"type": "string"}, {"type": "number"}]}),
            // JSON-e's own shape: listed properties and `additionalProperties` refer to the same
            // recursive value, whose `oneOf` has an object and an array branch back to the root.
            json!({"type": "object", "properties": {"note": {"type": "string"},
                "when": {"$ref": "#/$defs/value"}},
                "additionalProperties": {"$ref": "#/$defs/value"},
                "$defs": {"value": {"oneOf": [{"$ref": "#"},
                    {"type": "array", "items": {"$ref": "#"}},
                    {"type": ["null", "boolean", "number", "string"]}]}}}),
            // Mutual references in `$defs`, each through a property.
            json!({"$ref": "#/$defs/a", "$defs": {
                "a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}},
                "b": {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}}}}),
            // A binary tree: two properties recurse, but into different children.
            json!({"type": "object", "properties": {
                "left": {"$ref": "#"}, "right": {"$ref": "#"}}}),
            // Anchors and draft-07 definitions.
            json!({"definitions": {"n": {"$anchor": "node", "type": "object",
                "properties": {"next": {"$ref": "#node"}}}}, "$ref": "#/definitions/n"}),
            // An `$id`-named root referred to by its own URL.
            json!({"$id": "https://example.com/s.json", "type": "object",
                "properties": {"self": {"$ref": "https://example.com/s.json"}}}),
        ];
        for schema in cases {
            assert_eq!(check_schema_safety(&schema), Ok(()), "{schema}");
        }
    }

    #[test]
    fn a_cycle_that_stays_in_place_is_refused_naming_the_reference() {
        assert_eq!(
            refused_at(json!({"$ref": "#/$defs/a", "$defs": {
                "a": {"allOf": [{"$ref": "#/$defs/a"}]}}})),
            "schema.$defs.a.allOf[0].$ref"
        );
        assert_eq!(
            refused_at(json!({"type": "object", "anyOf": [{"$ref": "#"}]})),
            "schema.anyOf[0].$ref"
        );
        // A definition nothing refers to is checked too.
        assert_eq!(
            refused_at(json!({"$defs": {"a": {"$anchor": "x", "oneOf": [{"$ref": "#x"}]}}})),
            "schema.$defs.a.oneOf[0].$ref"
        );
        // A cycle across two definitions through `not` and `if`.
        let field = refused_at(json!({"$defs": {
            "a": {"not": {"$ref": "#/$defs/b"}}, "b": {"if": {"$ref": "#/$defs/a"}}},
            "properties": {"x": {"$ref": "#/$defs/a"}}}));
        assert!(field.ends_with(".$ref"), "{field}");
    }

    #[test]
    fn references_that_multiply_are_refused() {
        // A DAG that doubles at each level: 2^20 applications at the root.
        let mut defs = Map::new();
        for level in 0..20 {
            let next = format!("#/$defs/l{}", level + 1);
            defs.insert(
                format!("l{level}"),
                json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert("l20".to_owned(), json!({"type": "string"}));
        let schema = json!({"$ref": "#/$defs/l0", "$defs": defs});
        assert_eq!(refused_at(schema), "schema");
        // Recursion through items that doubles per level of the answer.
        let schema = json!({"allOf": [{"items": {"$ref": "#"}}, {"items": {"$ref": "#"}}]});
        assert_eq!(refused_at(schema), "schema");
    }

    #[test]
    fn unresolvable_and_remote_references_are_refused() {
        assert_eq!(
            refused_at(json!({"properties": {"x": {"$ref": "#/$defs/missing"}}})),
            "schema.properties.x.$ref"
        );
        assert_eq!(
            refused_at(json!({"properties": {"x": {"$ref": "https://evil.example/s.json"}}})),
            "schema.properties.x.$ref"
        );
        assert_eq!(
            refused_at(json!({"properties": {"x": {"$ref": "#nowhere"}}})),
            "schema.properties.x.$ref"
        );
    }

    #[test]
    fn documents_and_patterns_are_bounded() {
        let mut deep = json!({"type": "string"});
        for _ in 0..SCHEMA_MAX_DEPTH {
            deep = json!({"items": deep});
        }
        assert!(refused_at(deep).starts_with("schema.items.items"));
        assert_eq!(
            refused_at(json!({"properties": {"x": {"pattern": "(?=a)b"}}})),
            "schema.properties.x.pattern"
        );
        assert_eq!(
            refused_at(json!({"patternProperties": {"^(\\w)\\1$": {}}})),
            "schema.patternProperties.^(\\w)\\1$"
        );
        let long = "a".repeat(SCHEMA_PATTERN_MAX_CHARS + 1);
        assert_eq!(
            refused_at(json!({"properties": {"x": {"pattern": long}}})),
            "schema.properties.x.pattern"
        );
        let many: Map<String, Value> = (0..=SCHEMA_MAX_PATTERNS)
            .map(|i| {
                (
                    format!("p{i}"),
                    json!({"type": "string", "pattern": "^a+$"}),
                )
            })
            .collect();
        assert!(refused_at(json!({"properties": many})).starts_with("schema.properties.p"));
        // The classic backtracking bomb is fine on a linear-time engine.
        assert_eq!(
            check_schema_safety(&json!({"properties": {"x": {"pattern": "^(a+)+$"}}})),
            Ok(())
        );
    }

    #[test]
    fn field_names_follow_the_ask() {
        assert_eq!(field_of(""), "schema");
        assert_eq!(field_of("/$defs/a~1b/allOf/0"), "schema.$defs.a/b.allOf[0]");
    }
}
