//! The callback door's HTML: the byte-constant confirm and done pages, and the form rendered
//! from a question's stored schema. Nothing here sees the request; every schema-derived text is
//! HTML-escaped, so the same schema always gives the same bytes and a hostile title or enum
//! value renders as text.

use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use axum::response::{IntoResponse, Response};
use inbox_protocol::html::escape;
use serde_json::Value;

const HEAD: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
"#;

const STYLE: &str = "<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328}button{font:inherit;padding:.6rem 1.4rem;cursor:pointer}label{font-weight:600}input,select{font:inherit;width:100%;padding:.3rem;box-sizing:border-box}.hint{color:#59636e;font-size:.9em;margin:.2rem 0}</style>\n";

const CONFIRM_PAGE: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Confirm your answer</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328}button{font:inherit;padding:.6rem 1.4rem;cursor:pointer}</style>
</head>
<body>
<h1>Confirm your answer</h1>
<p>Press the button to send your answer back to the service that asked.</p>
<form method="post"><button type="submit">Confirm</button></form>
</body>
</html>
"#;

const DONE_PAGE: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Answer received</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328}</style>
</head>
<body>
<h1>Answer received</h1>
<p>Thank you. You can close this page.</p>
</body>
</html>
"#;

pub fn confirm() -> Response {
    html(CONFIRM_PAGE.to_owned())
}

pub fn done() -> Response {
    html(DONE_PAGE.to_owned())
}

/// The form for `schema`, which the ask admitted only in the renderable subset (object root,
/// scalar properties, string enums). Properties render in the stored schema's order.
pub fn form(schema: &Value) -> Response {
    html(render_form(schema))
}

fn render_form(schema: &Value) -> String {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(escape);
    let title = text(schema.get("title")).unwrap_or_else(|| "Your answer".to_owned());
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = String::with_capacity(4096);
    out.push_str(HEAD);
    out.push_str(&format!("<title>{title}</title>\n{STYLE}</head>\n<body>\n"));
    out.push_str(&format!("<h1>{title}</h1>\n"));
    if let Some(description) = text(schema.get("description")) {
        out.push_str(&format!("<p>{description}</p>\n"));
    }
    out.push_str("<form method=\"post\">\n");
    let properties = schema.get("properties").and_then(Value::as_object);
    for (i, (name, property)) in properties.into_iter().flatten().enumerate() {
        let id = format!("f{i}");
        let label = text(property.get("title")).unwrap_or_else(|| escape(name));
        let needed = required.contains(&name.as_str());
        let req_attr = if needed { " required" } else { "" };
        let name = escape(name);
        out.push_str(&format!("<p><label for=\"{id}\">{label}</label>"));
        if let Some(hint) = text(property.get("description")) {
            out.push_str(&format!("<br><span class=\"hint\">{hint}</span>"));
        }
        out.push_str("<br>\n");
        let kind = property
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("string");
        let choices: Option<Vec<String>> =
            property.get("enum").and_then(Value::as_array).map(|c| {
                c.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            });
        match (kind, choices) {
            ("string", Some(choices)) => {
                let options: Vec<(String, String)> =
                    choices.iter().map(|c| (escape(c), escape(c))).collect();
                select(&mut out, &id, &name, req_attr, needed, &options);
            }
            ("boolean", _) => {
                let options = [
                    ("true".to_owned(), "Yes".to_owned()),
                    ("false".to_owned(), "No".to_owned()),
                ];
                select(&mut out, &id, &name, req_attr, needed, &options);
            }
            ("integer", _) => out.push_str(&format!(
                "<input id=\"{id}\" name=\"{name}\" type=\"number\" step=\"1\"{req_attr}>"
            )),
            ("number", _) => out.push_str(&format!(
                "<input id=\"{id}\" name=\"{name}\" type=\"number\" step=\"any\"{req_attr}>"
            )),
            _ => out.push_str(&format!(
                "<input id=\"{id}\" name=\"{name}\" type=\"text\"{req_attr}>"
            )),
        }
        out.push_str("</p>\n");
    }
    out.push_str("<button type=\"submit\">Send</button>\n</form>\n</body>\n</html>\n");
    out
}

/// A `<select>`; an optional one starts with an empty choice ("not given").
fn select(
    out: &mut String,
    id: &str,
    name: &str,
    req_attr: &str,
    needed: bool,
    options: &[(String, String)],
) {
    out.push_str(&format!("<select id=\"{id}\" name=\"{name}\"{req_attr}>"));
    if !needed {
        out.push_str("<option value=\"\"></option>");
    }
    for (value, label) in options {
        out.push_str(&format!("<option value=\"{value}\">{label}</option>"));
    }
    out.push_str("</select>");
}

/// Headers for every page: nothing runs, nothing frames it, the ticket leaks to no referrer.
fn html(body: String) -> Response {
    (
        [
            (CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            ),
            (X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (X_FRAME_OPTIONS, "DENY"),
            (REFERRER_POLICY, "no-referrer"),
            (CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_form_renders_every_property_escaped() {
        let schema = json!({"type": "object", "title": "<b>Refund</b>",
            "properties": {
                "amount": {"type": "integer", "title": "Amount \"EUR\""},
                "approved": {"type": "boolean"},
                "note": {"type": "string", "description": "<script>alert(1)</script>"},
                "tier": {"type": "string", "enum": ["free", "p'ro"]},
                "x\"><img src=x>": {"type": "number"}
            },
            "required": ["approved", "tier"]});
        let page = render_form(&schema);
        assert!(page.contains("<title>&lt;b&gt;Refund&lt;/b&gt;</title>"));
        assert!(page.contains(r#"<input id="f0" name="amount" type="number" step="1">"#));
        assert!(page.contains("Amount &quot;EUR&quot;"));
        assert!(page.contains(
            r#"<select id="f1" name="approved" required><option value="true">Yes</option>"#
        ));
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains(r#"<option value="p&#39;ro">p&#39;ro</option>"#));
        assert!(page.contains(r#"name="x&quot;&gt;&lt;img src=x&gt;""#));
        assert!(!page.contains("<script") && !page.contains("<img") && !page.contains("<b>"));
        assert_eq!(page, render_form(&schema), "byte-stable");
    }
}
