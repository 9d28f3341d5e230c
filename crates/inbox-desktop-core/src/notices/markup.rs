//! Notification text is untrusted (the prompt comes from whoever asked), and the freedesktop
//! notification body is markup: a server advertising `body-markup` renders `<b>`, `<a href>`
//! and `<img src>` from it. So the body is escaped before it goes on the bus.
//!
//! Only `&`, `<` and `>` are escaped: with no `<` left no tag (and so no attribute) can form,
//! which is the only place a quote means anything; escaping quotes too would show `&quot;`
//! on the servers that know only the three basic entities.
//!
//! The summary (title) is not markup in the specification — GNOME Shell, dunst, mako and
//! xfce4-notifyd all escape it themselves — so escaping it here would put `&lt;` on screen.
//! It is sent as plain text; see `docs/security.md`.

/// `text` with every character that markup gives meaning to replaced by its entity.
pub fn escape_body(text: &str) -> String {
    inbox_protocol::html::escape_text(text)
}

#[cfg(test)]
mod tests {
    use super::escape_body;

    #[test]
    fn markup_in_a_prompt_reaches_the_bus_as_text() {
        let cases = [
            ("plain words", "plain words"),
            ("<b>bold</b>", "&lt;b&gt;bold&lt;/b&gt;"),
            (
                r#"<a href="https://evil.example">x</a>"#,
                r#"&lt;a href="https://evil.example"&gt;x&lt;/a&gt;"#,
            ),
            (
                r#"<img src="file:///etc/passwd"/>"#,
                r#"&lt;img src="file:///etc/passwd"/&gt;"#,
            ),
            // An entity written in the prompt stays the text the asker wrote.
            ("AT&amp;T &lt;", "AT&amp;amp;T &amp;lt;"),
            ("5 > 3 & 2 < 4", "5 &gt; 3 &amp; 2 &lt; 4"),
            ("ünïcödé ✓", "ünïcödé ✓"),
        ];
        for (prompt, sent) in cases {
            assert_eq!(escape_body(prompt), sent, "for {prompt:?}");
        }
    }
}
