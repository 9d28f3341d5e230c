//! The hostile-input suite: for every door, requests generated the way an attacker would write
//! them — malformed, deep, huge, of the wrong type, unicode edge cases, schema bombs, regex
//! bombs, oversize media and data URIs, header abuse — sent to a real server on loopback.
//!
//! Every one must be refused with a 4xx in the contract's error shape (naming the field when the
//! fault is in one), nothing may be stored or announced, and all the while a probe on `/healthz`
//! must be answered within 100 ms: no request may stall the server for the others.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{ADMIN, ASKER, OTHER_ASKER, REVIEWER, TestServer, start};
use reqwest::Method;
use serde_json::{Map, Value, json};

/// At least this many cases are generated for each door.
const CASES_PER_DOOR: usize = 200;

/// Every code a case may expect, so a typo in a case is caught rather than never matching.
const CODES: &[&str] = &[
    "invalid_field",
    "invalid_query",
    "invalid_answer",
    "invalid_media",
    "media_too_large",
    "missing_field",
    "field_not_allowed",
    "unknown_property",
    "malformed_json",
    "payload_too_large",
    "unauthorized",
    "forbidden",
    "not_found",
];
/// A wrong type, or a field that this format does not take.
const WRONG_FIELD: &[&str] = &["malformed_json", "field_not_allowed", "invalid_field"];
const BAD_MEDIA: &[&str] = &["invalid_media", "media_too_large", "field_not_allowed"];

/// What a refusal must look like.
#[derive(Debug, Clone)]
enum Field {
    /// The error names exactly this field.
    Exactly(String),
    /// The error names a field that starts with this (a path inside it).
    Within(String),
    /// No field: the fault is not in a field (auth, an unknown id, the body as a whole).
    None,
}

#[derive(Debug, Clone)]
enum Payload {
    Json(Value),
    Raw(Vec<u8>),
    Empty,
}

#[derive(Debug, Clone)]
struct Case {
    name: String,
    method: Method,
    path: String,
    token: Option<&'static str>,
    headers: Vec<(String, String)>,
    payload: Payload,
    /// The expected status, and the error codes that fit (one, unless the case is a family
    /// whose members fail different rules — a wrong type, or a field on the wrong format).
    status: u16,
    codes: &'static [&'static str],
    field: Field,
}

impl Case {
    fn new(name: impl Into<String>, method: Method, path: impl Into<String>) -> Case {
        Case {
            name: name.into(),
            method,
            path: path.into(),
            token: None,
            headers: Vec::new(),
            payload: Payload::Empty,
            status: 400,
            codes: &["invalid_field"],
            field: Field::None,
        }
    }
    fn token(mut self, token: &'static str) -> Case {
        self.token = Some(token);
        self
    }
    fn json(mut self, body: Value) -> Case {
        self.payload = Payload::Json(body);
        self
    }
    fn raw(mut self, body: impl Into<Vec<u8>>) -> Case {
        self.payload = Payload::Raw(body.into());
        self
    }
    fn header(mut self, name: &str, value: &str) -> Case {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
    fn refused(mut self, status: u16, code: &'static str, field: Field) -> Case {
        self.status = status;
        self.codes =
            std::slice::from_ref(CODES.iter().find(|c| **c == code).expect("a known code"));
        self.field = field;
        self
    }
    fn refused_as(mut self, status: u16, codes: &'static [&'static str], field: Field) -> Case {
        self.status = status;
        self.codes = codes;
        self.field = field;
        self
    }
}

fn exactly(field: &str) -> Field {
    Field::Exactly(field.to_owned())
}

fn within(field: &str) -> Field {
    Field::Within(field.to_owned())
}

/// A small deterministic generator, so a failing case is the same case on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Ids nobody was given: junk, traversal, injection, glob and unicode shapes, every length.
fn junk_ids(count: usize, seed: u64) -> Vec<String> {
    let fixed = [
        "x",
        "ia_",
        "ia_does_not_exist",
        "..",
        "..%2F..%2Fetc%2Fpasswd",
        "%2e%2e",
        "%00",
        "ia_%00x",
        "'%20OR%201%3D1%20--",
        "*",
        "ia_*",
        "%3F",
        "%5B%5D",
        "%F0%9F%92%A5",
        "%E2%80%AE",
        "%C0%AF",
        "%FF%FE",
        "null",
        "undefined",
        "0",
        "-1",
        "ia_%20",
        "%22%3E%3Cscript%3E",
        "cb_",
        "md_",
    ];
    let mut ids: Vec<String> = fixed.iter().map(|s| (*s).to_owned()).collect();
    let alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789_-.~";
    let mut rng = Rng(seed);
    while ids.len() < count {
        let len = match rng.below(4) {
            0 => 1 + rng.below(8),
            1 => 20 + rng.below(40),
            2 => 200 + rng.below(800),
            _ => 4_000 + rng.below(4_000),
        };
        let mut id = String::from(["ia_", "cb_", "md_", ""][rng.below(4)]);
        for _ in 0..len {
            if rng.below(10) == 0 {
                id.push_str(&format!("%{:02X}", rng.below(256)));
            } else {
                id.push(alphabet[rng.below(alphabet.len())] as char);
            }
        }
        ids.push(id);
    }
    ids
}

/// Header values a client should never get past auth with.
fn bad_auth() -> Vec<(&'static str, Option<String>)> {
    vec![
        ("no Authorization", None),
        ("empty bearer", Some("Bearer ".into())),
        ("basic scheme", Some("Basic YWxpY2U6c2VjcmV0".into())),
        ("wrong token", Some("Bearer not-a-token".into())),
        ("token prefix", Some(format!("Bearer {}", &REVIEWER[..10]))),
        ("token plus junk", Some(format!("Bearer {REVIEWER}x"))),
        (
            "lowercase scheme twice",
            Some(format!("bearer bearer {REVIEWER}")),
        ),
        ("huge token", Some(format!("Bearer {}", "t".repeat(6_000)))),
        ("unicode token", Some("Bearer токен".into())),
    ]
}

fn auth_cases(method: Method, path: &str, cases: &mut Vec<Case>) {
    for (name, value) in bad_auth() {
        let mut case = Case::new(format!("{path} {name}"), method.clone(), path).refused(
            401,
            "unauthorized",
            Field::None,
        );
        if let Some(value) = value {
            case = case.header("Authorization", &value);
        }
        cases.push(case);
    }
}

// ---- schemas an attacker would submit -------------------------------------------------------

/// Schemas that must be refused at ask time, with the field the refusal names.
fn hostile_schemas() -> Vec<(String, Value, Field)> {
    let mut out: Vec<(String, Value, Field)> = Vec::new();
    let mut push = |name: &str, schema: Value, field: Field| {
        out.push((name.to_owned(), schema, field));
    };
    push(
        "$defs entry whose allOf refers to itself",
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}},
               "$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}}),
        exactly("schema.$defs.a.allOf[0].$ref"),
    );
    push(
        "root anyOf refers to the root",
        json!({"type": "object", "anyOf": [{"$ref": "#"}]}),
        exactly("schema.anyOf[0].$ref"),
    );
    push(
        "root refers to itself",
        json!({"type": "object", "$ref": "#"}),
        exactly("schema.$ref"),
    );
    push(
        "cycle through not/if/then",
        json!({"type": "object", "$defs": {"a": {"not": {"$ref": "#/$defs/b"}},
            "b": {"if": {"$ref": "#/$defs/c"}}, "c": {"then": {"$ref": "#/$defs/a"}}},
            "allOf": [{"$ref": "#/$defs/a"}]}),
        within("schema."),
    );
    push(
        "cycle through an anchor",
        json!({"type": "object", "$defs": {"a": {"$anchor": "loop", "oneOf": [{"$ref": "#loop"}]}}}),
        exactly("schema.$defs.a.oneOf[0].$ref"),
    );
    push(
        "cycle through dependentSchemas",
        json!({"type": "object", "dependentSchemas": {"x": {"$ref": "#"}}}),
        exactly("schema.dependentSchemas.x.$ref"),
    );
    for depth in [8usize, 12, 16, 24] {
        let mut defs = Map::new();
        for level in 0..depth {
            let next = format!("#/$defs/l{}", level + 1);
            defs.insert(
                format!("l{level}"),
                json!({"allOf": [{"$ref": next}, {"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert(format!("l{depth}"), json!({"type": "string"}));
        push(
            &format!("references tripling over {depth} levels"),
            json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/l0"}}, "$defs": defs}),
            exactly("schema"),
        );
    }
    for fan in [2usize, 3, 4] {
        let branches: Vec<Value> = (0..fan)
            .map(|_| json!({"properties": {"x": {"$ref": "#"}}}))
            .collect();
        push(
            &format!("recursion that multiplies by {fan} per level"),
            json!({"type": "object", "allOf": branches}),
            exactly("schema"),
        );
    }
    let mut deep = json!({"type": "string"});
    for _ in 0..40 {
        deep = json!({"type": "object", "properties": {"d": deep}});
    }
    push(
        "nesting 80 levels deep",
        deep,
        within("schema.properties.d"),
    );
    let zeros: Vec<Value> = (0..12_000).map(|_| json!(0)).collect();
    push(
        "twelve thousand nodes",
        json!({"type": "object", "enum": zeros}),
        exactly("schema"),
    );
    for (name, pattern) in [
        ("lookahead", "(?=a)b"),
        ("lookbehind", "(?<=a)b"),
        ("backreference", "^(a)\\1$"),
        ("unbalanced group", "(a"),
    ] {
        push(
            &format!("pattern with {name}"),
            json!({"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}}),
            exactly("schema.properties.s.pattern"),
        );
    }
    push(
        "a pattern over the length cap",
        json!({"type": "object", "properties": {"s": {"type": "string",
            "pattern": "a".repeat(1_001)}}}),
        exactly("schema.properties.s.pattern"),
    );
    let many: Map<String, Value> = (0..70)
        .map(|i| (format!("p{i}"), json!({"type": "string", "pattern": "^a$"})))
        .collect();
    push(
        "seventy patterns",
        json!({"type": "object", "properties": many}),
        within("schema.properties.p"),
    );
    push(
        "a remote reference",
        json!({"type": "object", "properties": {"x": {"$ref": "https://evil.example/s.json"}}}),
        exactly("schema.properties.x.$ref"),
    );
    push(
        "a file reference",
        json!({"type": "object", "properties": {"x": {"$ref": "file:///etc/passwd"}}}),
        exactly("schema.properties.x.$ref"),
    );
    push(
        "a dangling pointer",
        json!({"type": "object", "properties": {"x": {"$ref": "#/nowhere/at/all"}}}),
        exactly("schema.properties.x.$ref"),
    );
    push(
        "a schema that is an array",
        json!([{"type": "object"}]),
        exactly("schema"),
    );
    push(
        "a root that is not an object type",
        json!({"type": "string"}),
        exactly("schema"),
    );
    push(
        "over the byte cap",
        json!({"type": "object", "description": "x".repeat(70_000)}),
        exactly("schema"),
    );
    out
}

// ---- the doors -------------------------------------------------------------------------------

const ASK: &str = "/api/interactions";

fn valid_asks() -> Vec<(&'static str, Value)> {
    vec![
        ("text", json!({"prompt": "Why?", "answer_format": "text"})),
        (
            "confirm",
            json!({"prompt": "Deploy?", "answer_format": "confirm"}),
        ),
        (
            "select",
            json!({"prompt": "Region?", "answer_format": "select",
                   "options": [{"value": "eu"}, {"value": "us"}]}),
        ),
        (
            "form",
            json!({"prompt": "Release", "answer_format": "form",
                   "schema": {"type": "object", "properties": {
                       "name": {"type": "string", "pattern": "^(a+)+$"},
                       "count": {"type": "integer"}}}}),
        ),
        (
            "external",
            json!({"prompt": "Sign", "answer_format": "external",
                   "link": "https://sign.example/?cb={callback_url}"}),
        ),
    ]
}

fn with(base: &Value, field: &str, value: Value) -> Value {
    let mut body = base.clone();
    body[field] = value;
    body
}

fn ask_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let ask = |name: String, body: Value, status: u16, code: &'static str, field: Field| {
        Case::new(name, Method::POST, ASK)
            .token(ASKER)
            .json(body)
            .refused(status, code, field)
    };
    // Wrong types for every field of every format: each names its field.
    let wrong: Vec<(&str, Vec<Value>)> = vec![
        (
            "prompt",
            vec![json!(1), json!(true), json!([]), json!({}), json!(null)],
        ),
        (
            "answer_format",
            vec![json!("yesno"), json!(1), json!(null), json!(["text"])],
        ),
        ("kind", vec![json!("alert"), json!(2), json!({})]),
        ("mode", vec![json!("later"), json!(0), json!([])]),
        (
            "options",
            vec![json!("eu"), json!(1), json!({"value": "x"})],
        ),
        ("media", vec![json!("https://x"), json!(1), json!({})]),
        ("metadata", vec![json!("x"), json!(1), json!([1])]),
        (
            "timeout_s",
            vec![json!("10"), json!(-1), json!(1.5), json!([])],
        ),
        ("expiry_at", vec![json!(1), json!("tomorrow"), json!({})]),
        ("pages", vec![json!("p"), json!(1)]),
        // (`[]` is not here: serde reads an empty array as a struct of defaults, `{}`.)
        ("data", vec![json!("d"), json!(1), json!(true)]),
    ];
    for (format, base) in valid_asks() {
        for (field, values) in &wrong {
            for value in values {
                cases.push(
                    ask(
                        format!("{format}: {field} = {value}"),
                        with(&base, field, value.clone()),
                        400,
                        "malformed_json",
                        within(field),
                    )
                    .refused_as(400, WRONG_FIELD, within(field)),
                );
            }
        }
        cases.push(ask(
            format!("{format}: unknown field"),
            with(&base, "sneaky", json!(1)),
            400,
            "malformed_json",
            Field::None,
        ));
        for (name, prompt, field) in [
            ("blank prompt", json!("   "), "prompt"),
            ("empty prompt", json!(""), "prompt"),
            ("prompt of newlines", json!("\n\n\t"), "prompt"),
            ("prompt over the cap", json!("é".repeat(8_001)), "prompt"),
        ] {
            cases.push(ask(
                format!("{format}: {name}"),
                with(&base, "prompt", prompt),
                400,
                "invalid_field",
                exactly(field),
            ));
        }
        cases.push(ask(
            format!("{format}: metadata over the cap"),
            with(&base, "metadata", json!({"blob": "m".repeat(9_000)})),
            400,
            "invalid_field",
            exactly("metadata"),
        ));
        cases.push(ask(
            format!("{format}: async without expiry_at"),
            with(&base, "mode", json!("async")),
            400,
            "missing_field",
            exactly("expiry_at"),
        ));
        cases.push(ask(
            format!("{format}: timeout over a week"),
            with(&base, "timeout_s", json!(604_801)),
            400,
            "invalid_field",
            exactly("timeout_s"),
        ));
        // Media: oversize, wrong kinds, wrong schemes.
        let media_cases: Vec<(&str, Value, &str)> = vec![
            ("empty media", json!([]), "media"),
            (
                "eleven items",
                Value::Array(
                    (0..11)
                        .map(|_| json!({"kind": "link", "url": "https://x.example"}))
                        .collect(),
                ),
                "media",
            ),
            (
                "http image",
                json!([{"kind": "image", "url": "http://x.example/a.png"}]),
                "media[0].url",
            ),
            (
                "javascript link",
                json!([{"kind": "link", "url": "javascript:alert(1)"}]),
                "media[0].url",
            ),
            (
                "data html",
                json!([{"kind": "image", "url": "data:text/html,<script>1</script>"}]),
                "media[0].url",
            ),
            (
                "data URI on a document",
                json!([{"kind": "document", "url": "data:image/png;base64,AAAA"}]),
                "media[0].url",
            ),
            (
                "oversize data URI",
                json!([{"kind": "image", "url": format!("data:image/png;base64,{}",
                    "A".repeat(2 * 1024 * 1024 + 8))}]),
                "media[0].url",
            ),
            (
                "blank caption",
                json!([{"kind": "link", "url": "https://x.example", "caption": "  "}]),
                "media[0].caption",
            ),
            (
                "filename on an image",
                json!([{"kind": "image", "url": "https://x.example/a.png", "filename": "a.png"}]),
                "media[0].filename",
            ),
            (
                "url over the cap",
                json!([{"kind": "link", "url": format!("https://x.example/{}", "a".repeat(2_100))}]),
                "media[0].url",
            ),
        ];
        for (name, media, field) in media_cases {
            cases.push(
                ask(
                    format!("{format}: {name}"),
                    with(&base, "media", media),
                    400,
                    "invalid_media",
                    within(field),
                )
                .refused_as(400, BAD_MEDIA, within(field)),
            );
        }
    }
    // Schema bombs, as forms.
    for (name, schema, field) in hostile_schemas() {
        cases.push(ask(
            format!("form schema: {name}"),
            json!({"prompt": "Fill", "answer_format": "form", "schema": schema}),
            400,
            "invalid_field",
            field,
        ));
    }
    // Prefill bombs.
    let form = json!({"prompt": "Fill", "answer_format": "form",
        "schema": {"type": "object", "properties": {
            "name": {"type": "string", "pattern": "^(a+)+$"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "nested": {"type": "object"}}}});
    let data_cases: Vec<(&str, Value, &'static str, Field)> = vec![
        (
            "a 3 MB prefill",
            json!({"values": {"name": "a".repeat(3 * 1024 * 1024)}}),
            "invalid_field",
            exactly("data"),
        ),
        (
            "a backtracking bomb prefill",
            json!({"values": {"name": format!("{}!", "a".repeat(30_000))}}),
            "invalid_field",
            exactly("data.values.name"),
        ),
        (
            "a large prefill array",
            json!({"values": {"tags": vec!["aaaaaaaaaaaaaaaaaaaa!"; 5_000]}}),
            "invalid_field",
            exactly("data"),
        ),
        (
            "a prefill nested 40 deep",
            json!({"values": {"nested": (0..40).fold(json!(1), |v, _| json!({"n": v}))}}),
            "invalid_field",
            exactly("data"),
        ),
        (
            "prefill of an unknown property",
            json!({"values": {"ghost": 1}}),
            "unknown_property",
            exactly("data.values.ghost"),
        ),
        (
            "options on a non-string",
            json!({"options": {"tags": [{"value": "x"}]}}),
            "field_not_allowed",
            exactly("data.options.tags"),
        ),
    ];
    for (name, data, code, field) in data_cases {
        cases.push(ask(
            format!("form: {name}"),
            with(&form, "data", data),
            400,
            code,
            field,
        ));
    }
    // Bodies that are not an ask at all.
    for (name, raw) in [
        ("empty body", Vec::new()),
        ("not JSON", b"deploy please".to_vec()),
        (
            "truncated JSON",
            b"{\"prompt\": \"x\", \"answer_format\": ".to_vec(),
        ),
        (
            "trailing garbage",
            b"{\"prompt\": \"x\", \"answer_format\": \"text\"} x".to_vec(),
        ),
        ("a JSON array", b"[1, 2, 3]".to_vec()),
        ("a JSON string", b"\"ask\"".to_vec()),
        ("invalid UTF-8", vec![b'{', b'"', 0xff, 0xfe, b'"', b'}']),
        (
            "a lone surrogate",
            b"{\"prompt\": \"\\ud800\", \"answer_format\": \"text\"}".to_vec(),
        ),
        (
            "a NUL byte",
            b"{\"prompt\": \"a\0b\", \"answer_format\": \"text\"}".to_vec(),
        ),
        (
            "nesting past the parser's limit",
            format!("{{\"metadata\": {}1{}}}", "[".repeat(200), "]".repeat(200)).into_bytes(),
        ),
        (
            "duplicate keys",
            b"{\"prompt\": \"x\", \"prompt\": \"y\", \"answer_format\": \"text\"}".to_vec(),
        ),
    ] {
        cases.push(
            Case::new(format!("ask: {name}"), Method::POST, ASK)
                .token(ASKER)
                .raw(raw)
                .refused(400, "malformed_json", Field::None),
        );
    }
    cases.push(
        Case::new("ask: a body over 6 MiB", Method::POST, ASK)
            .token(ASKER)
            .raw(vec![b' '; 6 * 1024 * 1024 + 1])
            .refused(413, "payload_too_large", Field::None),
    );
    cases.push(
        Case::new("ask: as a reviewer", Method::POST, ASK)
            .token(REVIEWER)
            .json(json!({"prompt": "x", "answer_format": "text"}))
            .refused(403, "forbidden", Field::None),
    );
    auth_cases(Method::POST, ASK, &mut cases);
    cases
}

/// The questions the answer-side doors are tried against; all must still be pending after.
struct Fixtures {
    text: String,
    confirm: String,
    select: String,
    form: String,
    external: String,
    ticket: String,
}

async fn fixtures(server: &TestServer) -> Fixtures {
    let mut ids = Vec::new();
    let mut ticket = String::new();
    for (format, body) in valid_asks() {
        let ia = server.ask(body).await;
        if format == "external" {
            let link = ia["link"].as_str().unwrap();
            ticket = link.rsplit('/').next().unwrap().to_owned();
        }
        ids.push(ia["id"].as_str().unwrap().to_owned());
    }
    let [text, confirm, select, form, external]: [String; 5] = ids.try_into().unwrap();
    Fixtures {
        text,
        confirm,
        select,
        form,
        external,
        ticket,
    }
}

fn answer_cases(f: &Fixtures) -> Vec<Case> {
    let mut cases = Vec::new();
    let answer = |name: String, id: &str, body: Value, code: &'static str, field: Field| {
        Case::new(name, Method::POST, format!("/api/interactions/{id}/answer"))
            .token(REVIEWER)
            .json(body)
            .refused(400, code, field)
    };
    let by_format: Vec<(&str, &str, Vec<Value>)> = vec![
        (
            "text",
            &f.text,
            vec![
                json!(1),
                json!(true),
                json!(null),
                json!([]),
                json!({}),
                json!("x".repeat(32_001)),
            ],
        ),
        (
            "confirm",
            &f.confirm,
            vec![
                json!("yes"),
                json!(1),
                json!(null),
                json!([true]),
                json!({}),
            ],
        ),
        (
            "select",
            &f.select,
            vec![
                json!("mars"),
                json!(1),
                json!(null),
                json!(["eu"]),
                json!({"value": "eu"}),
                json!("EU"),
                json!("eu "),
            ],
        ),
        (
            "form",
            &f.form,
            vec![
                json!("x"),
                json!([]),
                json!(null),
                json!({"count": "three"}),
                json!({"count": 1.5}),
                json!({"name": 7}),
                json!({"name": format!("{}!", "a".repeat(100_000))}),
                json!({"name": "aaab"}),
            ],
        ),
    ];
    for (format, id, values) in by_format {
        for value in values {
            let field = if format == "form" && value.is_object() {
                Field::Within(String::new())
            } else {
                exactly("answer")
            };
            cases.push(answer(
                format!("{format}: {value:.40}"),
                id,
                json!({ "answer": value }),
                "invalid_answer",
                field,
            ));
        }
    }
    cases.push(answer(
        "form: nested 40 deep".into(),
        &f.form,
        json!({"answer": {"extra": (0..40).fold(json!(1), |v, _| json!([v]))}}),
        "invalid_answer",
        exactly("answer"),
    ));
    cases.push(answer(
        "form: 300 KB answer".into(),
        &f.form,
        json!({"answer": {"extra": "z".repeat(300 * 1024)}}),
        "invalid_answer",
        exactly("answer"),
    ));
    for (name, params) in [
        ("params over the cap", json!({"blob": "p".repeat(9_000)})),
        (
            "params nested 40 deep",
            (0..40).fold(json!(1), |v, _| json!({ "p": v })),
        ),
    ] {
        cases.push(answer(
            format!("confirm: {name}"),
            &f.confirm,
            json!({"answer": true, "params": params}),
            "invalid_field",
            exactly("params"),
        ));
    }
    for (name, body) in [
        ("no answer field", json!({})),
        (
            "params not an object",
            json!({"answer": true, "params": [1]}),
        ),
        ("unknown field", json!({"answer": true, "by": "mallory"})),
    ] {
        cases.push(answer(
            format!("confirm: {name}"),
            &f.confirm,
            body,
            "malformed_json",
            Field::None,
        ));
    }
    for key in [
        String::new(),
        "k".repeat(201),
        "ключ".to_owned(),
        "a b".to_owned(),
        "tab\there".to_owned(),
    ] {
        let mut case = answer(
            format!("confirm: Idempotency-Key {key:.20?}"),
            &f.confirm,
            json!({"answer": true}),
            "invalid_field",
            exactly("Idempotency-Key"),
        );
        case.headers.push(("Idempotency-Key".into(), key));
        cases.push(case);
    }
    for id in junk_ids(170, 7) {
        cases.push(
            Case::new(
                format!("answer unknown id {id:.30}"),
                Method::POST,
                format!("/api/interactions/{id}/answer"),
            )
            .token(REVIEWER)
            .json(json!({"answer": true}))
            .refused(404, "not_found", Field::None),
        );
    }
    cases.push(
        Case::new(
            "answer as an asker",
            Method::POST,
            format!("/api/interactions/{}/answer", f.confirm),
        )
        .token(ASKER)
        .json(json!({"answer": true}))
        .refused(403, "forbidden", Field::None),
    );
    auth_cases(
        Method::POST,
        &format!("/api/interactions/{}/answer", f.confirm),
        &mut cases,
    );
    cases
}

fn decline_cases(f: &Fixtures) -> Vec<Case> {
    let mut cases = Vec::new();
    for (i, id) in [&f.text, &f.confirm, &f.select, &f.form, &f.external]
        .into_iter()
        .enumerate()
    {
        let path = format!("/api/interactions/{id}/decline");
        for (name, body, code, field) in [
            (
                "reason over the cap",
                json!({"reason": "r".repeat(2_001)}),
                "invalid_field",
                exactly("reason"),
            ),
            (
                "reason a number",
                json!({"reason": 1}),
                "malformed_json",
                within("reason"),
            ),
            (
                "reason an object",
                json!({"reason": {}}),
                "malformed_json",
                within("reason"),
            ),
            (
                "unknown field",
                json!({"because": "x"}),
                "malformed_json",
                Field::None,
            ),
        ] {
            cases.push(
                Case::new(format!("decline #{i}: {name}"), Method::POST, path.clone())
                    .token(REVIEWER)
                    .json(body)
                    .refused(400, code, field),
            );
        }
        for raw in [&b"{"[..], b"null x", b"[1]", &[0xffu8, 0x00][..]] {
            cases.push(
                Case::new(
                    format!("decline #{i}: raw {raw:?}"),
                    Method::POST,
                    path.clone(),
                )
                .token(REVIEWER)
                .raw(raw.to_vec())
                .refused(400, "malformed_json", Field::None),
            );
        }
        let mut case = Case::new(
            format!("decline #{i}: long key"),
            Method::POST,
            path.clone(),
        )
        .token(REVIEWER)
        .json(json!({}))
        .refused(400, "invalid_field", exactly("Idempotency-Key"));
        case.headers
            .push(("Idempotency-Key".into(), "k".repeat(300)));
        cases.push(case);
    }
    for id in junk_ids(150, 11) {
        cases.push(
            Case::new(
                format!("decline unknown id {id:.30}"),
                Method::POST,
                format!("/api/interactions/{id}/decline"),
            )
            .token(REVIEWER)
            .json(json!({}))
            .refused(404, "not_found", Field::None),
        );
    }
    auth_cases(
        Method::POST,
        &format!("/api/interactions/{}/decline", f.text),
        &mut cases,
    );
    cases
}

/// Doors addressed by an id alone: each gets every junk id, the others' ids where the caller
/// may not see them, and the auth abuse.
fn id_door_cases(f: &Fixtures) -> Vec<Vec<Case>> {
    let mut read = Vec::new();
    let mut withdraw = Vec::new();
    let mut wait = Vec::new();
    let mut media = Vec::new();
    for id in junk_ids(CASES_PER_DOOR, 3) {
        read.push(
            Case::new(
                format!("read {id:.30}"),
                Method::GET,
                format!("/api/interactions/{id}"),
            )
            .token(REVIEWER)
            .refused(404, "not_found", Field::None),
        );
        withdraw.push(
            Case::new(
                format!("withdraw {id:.30}"),
                Method::DELETE,
                format!("/api/interactions/{id}"),
            )
            .token(ASKER)
            .refused(404, "not_found", Field::None),
        );
        wait.push(
            Case::new(
                format!("wait {id:.30}"),
                Method::GET,
                format!("/api/interactions/{id}/wait?timeout_s=0"),
            )
            .token(ASKER)
            .refused(404, "not_found", Field::None),
        );
        media.push(
            Case::new(
                format!("media {id:.30}"),
                Method::GET,
                format!("/api/interactions/media/{id}"),
            )
            .refused(404, "not_found", Field::None),
        );
    }
    for id in [&f.text, &f.confirm, &f.select, &f.form, &f.external] {
        // Another asker's question is as invisible as a missing one.
        for (door, method, path) in [
            (&mut read, Method::GET, format!("/api/interactions/{id}")),
            (
                &mut withdraw,
                Method::DELETE,
                format!("/api/interactions/{id}"),
            ),
            (
                &mut wait,
                Method::GET,
                format!("/api/interactions/{id}/wait?timeout_s=0"),
            ),
        ] {
            door.push(
                Case::new(format!("{path} as another asker"), method, path)
                    .token(OTHER_ASKER)
                    .refused(404, "not_found", Field::None),
            );
        }
        withdraw.push(
            Case::new(
                format!("withdraw {id} as a reviewer"),
                Method::DELETE,
                format!("/api/interactions/{id}"),
            )
            .token(REVIEWER)
            .refused(403, "forbidden", Field::None),
        );
        for value in [
            "-1",
            "abc",
            "1e9",
            "",
            "%00",
            "99999999999999999999999",
            "1.5",
        ] {
            wait.push(
                Case::new(
                    format!("wait {id} timeout_s={value}"),
                    Method::GET,
                    format!("/api/interactions/{id}/wait?timeout_s={value}"),
                )
                .token(ASKER)
                .refused(400, "invalid_query", exactly("timeout_s")),
            );
        }
    }
    auth_cases(
        Method::GET,
        &format!("/api/interactions/{}", f.text),
        &mut read,
    );
    auth_cases(
        Method::DELETE,
        &format!("/api/interactions/{}", f.text),
        &mut withdraw,
    );
    auth_cases(
        Method::GET,
        &format!("/api/interactions/{}/wait", f.text),
        &mut wait,
    );
    vec![read, withdraw, wait, media]
}

fn list_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let statuses = ["bogus", "PENDING", "%00", "pending,answered", "🙂", ""];
    for status in statuses {
        if status.is_empty() {
            continue;
        }
        cases.push(
            Case::new(
                format!("list status={status}"),
                Method::GET,
                format!("/api/interactions?status={status}"),
            )
            .token(REVIEWER)
            .refused(400, "invalid_query", exactly("status")),
        );
    }
    for limit in [
        "0",
        "-1",
        "abc",
        "1e3",
        "1.5",
        "%20",
        "99999999999999999999999",
    ] {
        cases.push(
            Case::new(
                format!("list limit={limit}"),
                Method::GET,
                format!("/api/interactions?limit={limit}"),
            )
            .token(REVIEWER)
            .refused(400, "invalid_query", exactly("limit")),
        );
    }
    for cursor in junk_ids(CASES_PER_DOOR, 5) {
        cases.push(
            Case::new(
                format!("list cursor={cursor:.30}"),
                Method::GET,
                format!("/api/interactions?cursor=x{cursor}"),
            )
            .token(REVIEWER)
            .refused(400, "invalid_query", exactly("cursor")),
        );
    }
    cases.push(
        Case::new("list as an asker", Method::GET, "/api/interactions")
            .token(ASKER)
            .refused(403, "forbidden", Field::None),
    );
    auth_cases(Method::GET, "/api/interactions", &mut cases);
    cases
}

fn stream_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (i, _) in junk_ids(CASES_PER_DOOR, 9).iter().enumerate() {
        // Every bad credential, in every place a client could put one.
        let (name, value) = &bad_auth()[i % bad_auth().len()];
        let mut case = Case::new(
            format!("stream #{i}: {name}"),
            Method::GET,
            format!("/api/interactions/stream?last_event_id={i}"),
        )
        .refused(401, "unauthorized", Field::None);
        if let Some(value) = value {
            case = case.header("Authorization", value);
        }
        cases.push(case);
    }
    // An asker may open the stream: it hears only the submissions of its own notifications
    // (tests/notifications.rs checks that nothing else reaches it).
    cases
}

fn callback_cases(f: &Fixtures) -> Vec<Case> {
    let mut cases = Vec::new();
    for ticket in junk_ids(CASES_PER_DOOR / 2, 13) {
        let path = format!("/api/interactions/callback/{ticket}");
        cases.push(
            Case::new(
                format!("callback GET {ticket:.30}"),
                Method::GET,
                path.clone(),
            )
            .refused(404, "not_found", Field::None),
        );
        cases.push(
            Case::new(format!("callback POST {ticket:.30}"), Method::POST, path)
                .json(json!({"signed": true}))
                .refused(404, "not_found", Field::None),
        );
    }
    let path = format!("/api/interactions/callback/{}", f.ticket);
    for (name, raw) in [
        ("truncated JSON", b"{\"signed\": ".to_vec()),
        ("trailing garbage", b"{} {}".to_vec()),
        ("invalid UTF-8", vec![0xff, 0xfe, 0xfd]),
        (
            "nesting past the parser's limit",
            format!("{}1{}", "[".repeat(300), "]".repeat(300)).into_bytes(),
        ),
    ] {
        cases.push(
            Case::new(format!("callback: {name}"), Method::POST, path.clone())
                .header("Content-Type", "application/json")
                .raw(raw)
                .refused(400, "malformed_json", Field::None),
        );
    }
    cases.push(
        Case::new("callback: nested 40 deep", Method::POST, path.clone())
            .json((0..40).fold(json!(1), |v, _| json!({ "n": v })))
            .refused(400, "invalid_answer", exactly("answer")),
    );
    cases.push(
        Case::new("callback: 300 KB", Method::POST, path.clone())
            .json(json!({"blob": "c".repeat(300 * 1024)}))
            .refused(413, "payload_too_large", Field::None),
    );
    cases
}

// ---- running them ----------------------------------------------------------------------------

async fn send(server: &TestServer, case: &Case) -> (u16, Value) {
    // A fresh connection per case: the server may close one after refusing a request whose
    // body it did not read (a 413, a 401 before the body), and a pooled connection that is
    // closing as the next case reuses it fails that case with "error sending request" — a
    // race in the client, not a refusal. Whether the server stays responsive is asked apart.
    static HTTP: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    let http = HTTP.get_or_init(|| {
        reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .unwrap()
    });
    let mut req = http.request(case.method.clone(), server.url(&case.path));
    if let Some(token) = case.token {
        req = req.bearer_auth(token);
    }
    for (name, value) in &case.headers {
        req = req.header(name.as_str(), value.as_str());
    }
    req = match &case.payload {
        Payload::Json(body) => req.json(body),
        Payload::Raw(bytes) => req.body(bytes.clone()),
        Payload::Empty => req,
    };
    let resp = req
        .send()
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let status = resp.status().as_u16();
    let body = resp.json::<Value>().await.unwrap_or(Value::Null);
    (status, body)
}

fn judge(case: &Case, status: u16, body: &Value) -> Result<(), String> {
    let error = &body["error"];
    let code = error["code"].as_str().unwrap_or("<none>");
    let field = error["field"].as_str();
    let seen = format!("got {status} {code} field={field:?} ({})", error["message"]);
    if status != case.status || !case.codes.contains(&code) {
        return Err(format!("expected {} {:?}, {seen}", case.status, case.codes));
    }
    if error["message"].as_str().is_none_or(str::is_empty) {
        return Err(format!("no message: {seen}"));
    }
    match &case.field {
        Field::Exactly(want) if field != Some(want.as_str()) => {
            Err(format!("expected field {want:?}, {seen}"))
        }
        Field::Within(prefix) if !field.is_some_and(|f| f.starts_with(prefix.as_str())) => {
            Err(format!("expected a field within {prefix:?}, {seen}"))
        }
        _ => Ok(()),
    }
}

/// What the health probe saw while the suite ran.
struct Health {
    slowest: Duration,
    probes: usize,
    /// The longest run of consecutive probes slower than [`HEALTH_BUDGET`].
    slow_streak: usize,
}

/// How fast `/healthz` must answer. One slow probe can be the test machine's scheduler; a
/// stalled server makes every probe slow, so two in a row count as a stall.
const HEALTH_BUDGET: Duration = Duration::from_millis(100);

/// `/healthz` every 20 ms while the suite runs.
fn probe_health(server: &TestServer, running: Arc<AtomicBool>) -> tokio::task::JoinHandle<Health> {
    let url = server.url("/healthz");
    let http = reqwest::Client::new();
    tokio::spawn(async move {
        let mut health = Health {
            slowest: Duration::ZERO,
            probes: 0,
            slow_streak: 0,
        };
        let mut streak = 0;
        while running.load(Ordering::Relaxed) {
            let started = Instant::now();
            let resp = tokio::time::timeout(Duration::from_secs(5), http.get(&url).send())
                .await
                .expect("healthz answers")
                .expect("healthz reachable");
            assert!(resp.status().is_success());
            let took = started.elapsed();
            health.slowest = health.slowest.max(took);
            health.probes += 1;
            streak = if took > HEALTH_BUDGET { streak + 1 } else { 0 };
            health.slow_streak = health.slow_streak.max(streak);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        health
    })
}

/// What must be unchanged after the suite: the pending list and the events stream's tail.
async fn snapshot(server: &TestServer) -> (Vec<String>, Value) {
    let (_, page) = server
        .get_json("/api/interactions?status=all&limit=500", Some(ADMIN))
        .await;
    let mut ids: Vec<String> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|ia| format!("{} {}", ia["id"], ia["status"]))
        .collect();
    ids.sort();
    (ids, page["stream_cursor"].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_door_refuses_hostile_input_and_stays_responsive() {
    let (server, _dir) = start().await;
    let f = fixtures(&server).await;
    let before = snapshot(&server).await;

    let mut doors: Vec<(&str, Vec<Case>)> = vec![
        ("ask", ask_cases()),
        ("answer", answer_cases(&f)),
        ("decline", decline_cases(&f)),
        ("list", list_cases()),
        ("stream", stream_cases()),
        ("callback", callback_cases(&f)),
    ];
    let [read, withdraw, wait, media]: [Vec<Case>; 4] = id_door_cases(&f).try_into().unwrap();
    doors.extend([
        ("read", read),
        ("withdraw", withdraw),
        ("wait", wait),
        ("media", media),
    ]);

    let running = Arc::new(AtomicBool::new(true));
    let probe = probe_health(&server, running.clone());
    let mut failures = Vec::new();
    let mut total = 0;
    for (door, cases) in &doors {
        if cases.len() < CASES_PER_DOOR {
            failures.push(format!("[{door}] only {} cases generated", cases.len()));
        }
        for case in cases {
            let (status, body) = send(&server, case).await;
            if let Err(why) = judge(case, status, &body) {
                failures.push(format!("[{door}] {}: {why}", case.name));
            }
            total += 1;
        }
    }
    running.store(false, Ordering::Relaxed);
    let health = probe.await.unwrap();
    println!(
        "{total} hostile requests; {} /healthz probes, slowest {:?}",
        health.probes, health.slowest
    );

    assert!(
        failures.is_empty(),
        "{} of {total} cases were not refused as expected:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        snapshot(&server).await,
        before,
        "nothing was stored, resolved or announced"
    );
    assert!(
        health.slow_streak < 2 && health.slowest < Duration::from_secs(1),
        "/healthz stalled while the suite ran: {} probes in a row over {HEALTH_BUDGET:?}, \
         slowest {:?}",
        health.slow_streak,
        health.slowest
    );
    server.shutdown().await;
}

/// A schema that would never finish validating, already in the store (written before the
/// ask-time checks existed, or by another tool): answering it through the answer door or the
/// callback door is refused at once, the question can still be declined, and the server keeps
/// answering everyone else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_runaway_schema_is_refused_on_answer_and_callback() {
    use inbox_protocol::{AnswerFormat, Interaction, Status};
    use inbox_server::store::{NewAsk, NewTicket, SqliteStore, Store};
    use sha2::{Digest, Sha256};

    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("inbox.sqlite3"), 1_000).unwrap());
    let cyclic = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}},
        "$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}});
    let ticket = "cb_stored_bomb_ticket";
    let hash: String = Sha256::digest(ticket.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    for (id, format) in [
        ("ia_form", AnswerFormat::Form),
        ("ia_ext", AnswerFormat::External),
    ] {
        let external = format == AnswerFormat::External;
        store
            .insert_ask(NewAsk {
                interaction: Interaction::builder(id)
                    .prompt("Fill")
                    .format(format)
                    .schema(cyclic.clone())
                    .link(external.then(|| format!("https://x.example/{ticket}")))
                    .asker("deploy-bot")
                    .build(),
                pending_limit: usize::MAX,
                media: vec![],
                ticket: external.then(|| NewTicket {
                    hash: hash.clone(),
                    expires_at: chrono::Utc::now() + chrono::Duration::hours(1),
                    verifier: None,
                }),
            })
            .await
            .unwrap();
    }
    let state = inbox_server::AppState::new(store.clone(), common::tokens(), "http://127.0.0.1");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, inbox_server::app(state)).await });
    let http = reqwest::Client::new();

    let started = Instant::now();
    let answered = http
        .post(format!("{base}/api/interactions/ia_form/answer"))
        .bearer_auth(REVIEWER)
        .json(&json!({"answer": {"x": 1}}))
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status().as_u16(), 500);
    let body: Value = answered.json().await.unwrap();
    assert_eq!(body["error"]["code"], "internal");
    assert_eq!(body["error"]["field"], "schema");
    let called_back = http
        .post(format!("{base}/api/interactions/callback/{ticket}"))
        .json(&json!({"x": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(called_back.status().as_u16(), 500);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "refused at once, not after a long run: {:?}",
        started.elapsed()
    );
    let health = http.get(format!("{base}/healthz")).send().await.unwrap();
    assert!(health.status().is_success());
    let declined = http
        .post(format!("{base}/api/interactions/ia_form/decline"))
        .bearer_auth(REVIEWER)
        .json(&json!({"reason": "cannot be answered"}))
        .send()
        .await
        .unwrap();
    assert_eq!(declined.status().as_u16(), 200);
    assert_eq!(
        store.get("ia_ext").await.unwrap().unwrap().status,
        Status::Pending,
        "nothing was stored by the refused callback"
    );
}
