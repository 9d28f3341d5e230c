//! Untrusted text put into HTML, or into the HTML-like markup of a desktop notification body:
//! one escaper for every place that does it (the callback door's pages in the server, the
//! notification body in the desktop app).

/// `text` safe in element content and in double- or single-quoted attribute values: `&`, `<`,
/// `>`, `"` and `'` become entities.
pub fn escape(text: &str) -> String {
    escape_chars(text, true)
}

/// `text` safe as element content only: `&`, `<` and `>` become entities, quotes stay.
///
/// With no `<` left no tag (and so no attribute) can form, the only place a quote means
/// anything. This is for renderers that know only the three basic entities (a freedesktop
/// notification body would show `&quot;` as written); text that may end up in an attribute
/// takes [`escape`].
pub fn escape_text(text: &str) -> String {
    escape_chars(text, false)
}

fn escape_chars(text: &str, quotes: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quotes => out.push_str("&quot;"),
            '\'' if quotes => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{escape, escape_text};

    #[test]
    fn markup_characters_become_entities_and_quotes_only_for_attributes() {
        // (text, escape, escape_text)
        let cases = [
            ("plain words", "plain words", "plain words"),
            (
                "<b>bold</b>",
                "&lt;b&gt;bold&lt;/b&gt;",
                "&lt;b&gt;bold&lt;/b&gt;",
            ),
            (
                r#"" onmouseover="x"#,
                "&quot; onmouseover=&quot;x",
                r#"" onmouseover="x"#,
            ),
            ("it's", "it&#39;s", "it's"),
            // An entity in the text stays the text that was written.
            ("AT&amp;T", "AT&amp;amp;T", "AT&amp;amp;T"),
            (
                "5 > 3 & 2 < 4",
                "5 &gt; 3 &amp; 2 &lt; 4",
                "5 &gt; 3 &amp; 2 &lt; 4",
            ),
            ("ünïcödé ✓", "ünïcödé ✓", "ünïcödé ✓"),
            ("", "", ""),
        ];
        for (text, attribute_safe, content_safe) in cases {
            assert_eq!(escape(text), attribute_safe, "escape({text:?})");
            assert_eq!(escape_text(text), content_safe, "escape_text({text:?})");
        }
    }
}
