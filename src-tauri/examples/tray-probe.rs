//! What the desktop sees of the app from outside, for the end-to-end tests (tests/e2e/tray.test.mjs):
//!
//! - the **tray**: this probe is the `org.kde.StatusNotifierWatcher` of the session bus (the part of
//!   a desktop shell that tray icons register with), so the app's indicator registers here; the probe
//!   then reads the indicator's menu over `com.canonical.dbusmenu` and clicks its items — as a panel
//!   would show and click them;
//! - the **window**: through X11, as a window manager would — whether the window is mapped, and the
//!   close button (a `WM_DELETE_WINDOW` message, which is what clicking × sends).
//!
//! Line protocol: one command per line on stdin, one JSON object per line on stdout.
//!   `menu`                → {"menu":[{"id":1,"label":"Open inbox","enabled":true,"toggle":null},…]}
//!   `badge`               → {"badge":{"file":…,"count":<the count drawn on the icon, or null>}}
//!   `click <id>`          → {"clicked":<id>}
//!   `close <title>`       → {"closed":<windows sent WM_DELETE_WINDOW>}
//!   `window <title>`      → {"window":{"found":<n>,"viewable":<any of them mapped>}}
//! Unprompted: {"ready":true} once the watcher name is owned, {"registered":{…}} when an item
//! registers. A failed command answers {"error":"…"}; the probe never exits on one.

use std::collections::HashMap;
use std::io::BufRead;
use std::sync::{Arc, Mutex};

use serde_json::{Value as Json, json};
use zbus::object_server::SignalEmitter;
use zbus::zvariant::{ObjectPath, OwnedValue, Value};

const WATCHER_NAME: &str = "org.kde.StatusNotifierWatcher";
const WATCHER_PATH: &str = "/StatusNotifierWatcher";
const ITEM_INTERFACE: &str = "org.kde.StatusNotifierItem";
const MENU_INTERFACE: &str = "com.canonical.dbusmenu";

/// The registered indicator: its bus name and object path.
#[derive(Clone, Debug)]
struct Item {
    bus_name: String,
    path: String,
}

struct Watcher {
    items: Arc<Mutex<Vec<Item>>>,
}

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl Watcher {
    async fn register_status_notifier_item(
        &self,
        service: String,
        #[zbus(header)] header: zbus::message::Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) {
        // Items pass either their bus name (then the path is the spec's default) or, as Ayatana
        // does, their object path (then the bus name is the caller's).
        let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
        let item = if service.starts_with('/') {
            Item {
                bus_name: sender,
                path: service.clone(),
            }
        } else {
            Item {
                bus_name: service.clone(),
                path: "/StatusNotifierItem".to_owned(),
            }
        };
        say(json!({"registered": {"bus_name": item.bus_name, "path": item.path}}));
        self.items.lock().unwrap().push(item);
        let _ = Self::status_notifier_item_registered(&emitter, &service).await;
    }

    fn register_status_notifier_host(&self, _service: String) {}

    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        self.items
            .lock()
            .unwrap()
            .iter()
            .map(|i| format!("{}{}", i.bus_name, i.path))
            .collect()
    }

    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        // A panel is here to show the items: without one, indicators fall back or hide.
        true
    }

    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }

    #[zbus(signal)]
    async fn status_notifier_item_registered(
        emitter: &SignalEmitter<'_>,
        service: &str,
    ) -> zbus::Result<()>;
}

fn say(line: Json) {
    println!("{line}");
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let items = Arc::new(Mutex::new(Vec::new()));
    let connection = zbus::connection::Builder::session()?
        .serve_at(
            WATCHER_PATH,
            Watcher {
                items: items.clone(),
            },
        )?
        .name(WATCHER_NAME)?
        .build()
        .await?;
    say(json!({"ready": true}));

    // Stdin is read on its own thread: the bus keeps being served while a command waits.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    while let Some(line) = rx.recv().await {
        let (command, rest) = line.trim().split_once(' ').unwrap_or((line.trim(), ""));
        let item = items.lock().unwrap().last().cloned();
        let answer = match command {
            "menu" => menu(&connection, item).await.map(|m| json!({"menu": m})),
            "badge" => badge(&connection, item).await.map(|b| json!({"badge": b})),
            "click" => click(&connection, item, rest)
                .await
                .map(|id| json!({"clicked": id})),
            "close" => x11::close(rest).map(|n| json!({"closed": n})),
            "window" => x11::state(rest)
                .map(|(found, viewable)| json!({"window": {"found": found, "viewable": viewable}})),
            other => Err(anyhow::anyhow!("unknown command {other:?}")),
        };
        say(answer.unwrap_or_else(|e| json!({"error": format!("{e:#}")})));
    }
    Ok(())
}

fn registered(item: Option<Item>) -> anyhow::Result<Item> {
    item.ok_or_else(|| anyhow::anyhow!("no tray item has registered"))
}

async fn item_property(
    connection: &zbus::Connection,
    item: &Item,
    name: &str,
) -> anyhow::Result<OwnedValue> {
    let reply = connection
        .call_method(
            Some(item.bus_name.as_str()),
            item.path.as_str(),
            Some("org.freedesktop.DBus.Properties"),
            "Get",
            &(ITEM_INTERFACE, name),
        )
        .await?;
    Ok(reply.body().deserialize::<OwnedValue>()?)
}

async fn menu_path(connection: &zbus::Connection, item: &Item) -> anyhow::Result<String> {
    let value = item_property(connection, item, "Menu").await?;
    let path: ObjectPath<'_> = value.downcast_ref()?;
    Ok(path.to_string())
}

async fn menu(connection: &zbus::Connection, item: Option<Item>) -> anyhow::Result<Vec<Json>> {
    let item = registered(item)?;
    let path = menu_path(connection, &item).await?;
    let reply = connection
        .call_method(
            Some(item.bus_name.as_str()),
            path.as_str(),
            Some(MENU_INTERFACE),
            "GetLayout",
            &(0i32, -1i32, Vec::<String>::new()),
        )
        .await?;
    let body = reply.body();
    type Node = (i32, HashMap<String, OwnedValue>, Vec<OwnedValue>);
    let (_revision, (_root, _props, children)): (u32, Node) = body.deserialize()?;
    let mut entries = Vec::new();
    for child in &children {
        flatten(child, &mut entries)?;
    }
    Ok(entries)
}

/// One menu node `(id, properties, children)` and everything under it, in order.
fn flatten(node: &Value<'_>, out: &mut Vec<Json>) -> anyhow::Result<()> {
    let node = match node {
        Value::Value(inner) => inner.as_ref(),
        other => other,
    };
    let Value::Structure(node) = node else {
        anyhow::bail!("a menu node is not a structure: {node:?}");
    };
    let [Value::I32(id), Value::Dict(props), Value::Array(children)] = node.fields() else {
        anyhow::bail!("a menu node is not (ia{{sv}}av): {node:?}");
    };
    let mut entry =
        json!({"id": id, "label": null, "enabled": true, "toggle": null, "type": "standard"});
    for (key, value) in props.iter() {
        let Value::Str(key) = key else { continue };
        let value = match value {
            Value::Value(inner) => inner.as_ref(),
            other => other,
        };
        match (key.as_str(), value) {
            // GTK marks mnemonics with `_`; a panel draws them underlined, not as text.
            ("label", Value::Str(s)) => entry["label"] = json!(s.as_str().replace('_', "")),
            ("enabled", Value::Bool(b)) => entry["enabled"] = json!(b),
            ("toggle-state", Value::I32(t)) => entry["toggle"] = json!(t),
            ("type", Value::Str(s)) => entry["type"] = json!(s.as_str()),
            _ => {}
        }
    }
    out.push(entry);
    for child in children.iter() {
        flatten(child, out)?;
    }
    Ok(())
}

async fn badge(connection: &zbus::Connection, item: Option<Item>) -> anyhow::Result<Json> {
    let item = registered(item)?;
    let name = item_property(connection, &item, "IconName").await?;
    let file: String = name.downcast_ref::<&str>()?.to_owned();
    // Ayatana takes either a name in the theme path or a full path; tray-icon passes a full path.
    let file = if file.starts_with('/') {
        std::path::PathBuf::from(&file)
    } else {
        let theme: String = item_property(connection, &item, "IconThemePath")
            .await?
            .downcast_ref::<&str>()?
            .to_owned();
        std::path::Path::new(&theme).join(format!("{file}.png"))
    };
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&file)?));
    let mut reader = decoder.read_info()?;
    let mut pixels = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let frame = reader.next_frame(&mut pixels)?;
    pixels.truncate(frame.buffer_size());
    // Counts above 99 share one badge ("99+"), so the first match is the answer.
    let count = (0..=100u32).find(|&n| {
        let drawn = inbox_desktop_core::tray_badge::render(n);
        drawn.width == frame.width && drawn.height == frame.height && drawn.rgba == pixels
    });
    Ok(json!({"file": file, "count": count}))
}

async fn click(connection: &zbus::Connection, item: Option<Item>, id: &str) -> anyhow::Result<i32> {
    let item = registered(item)?;
    let id: i32 = id
        .trim()
        .parse()
        .map_err(|_| anyhow::anyhow!("click wants a menu id, got {id:?}"))?;
    let path = menu_path(connection, &item).await?;
    let timestamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as u32)
        .unwrap_or(0);
    connection
        .call_method(
            Some(item.bus_name.as_str()),
            path.as_str(),
            Some(MENU_INTERFACE),
            "Event",
            &(id, "clicked", Value::from(""), timestamp),
        )
        .await?;
    Ok(id)
}

/// The window as a window manager sees it (Xvfb has none; the tests play its part).
mod x11 {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{
        AtomEnum, ClientMessageEvent, ConnectionExt, EventMask, MapState, Window,
    };
    use x11rb::rust_connection::RustConnection;

    struct Display {
        conn: RustConnection,
        root: Window,
    }

    impl Display {
        fn open() -> anyhow::Result<Display> {
            let (conn, screen) = x11rb::connect(None)
                .map_err(|e| anyhow::anyhow!("cannot open the X display (is DISPLAY set?): {e}"))?;
            let root = conn.setup().roots[screen].root;
            Ok(Display { conn, root })
        }

        fn atom(&self, name: &str) -> anyhow::Result<u32> {
            Ok(self.conn.intern_atom(false, name.as_bytes())?.reply()?.atom)
        }

        /// Every window under the root whose `WM_NAME` is `title`.
        fn windows_named(&self, title: &str) -> anyhow::Result<Vec<Window>> {
            let mut found = Vec::new();
            let mut stack = vec![self.root];
            while let Some(window) = stack.pop() {
                let name = self
                    .conn
                    .get_property(false, window, AtomEnum::WM_NAME, AtomEnum::ANY, 0, 1024)?
                    .reply()?;
                if name.value == title.as_bytes() {
                    found.push(window);
                }
                stack.extend(self.conn.query_tree(window)?.reply()?.children);
            }
            Ok(found)
        }

        fn viewable(&self, window: Window) -> anyhow::Result<bool> {
            let attributes = self.conn.get_window_attributes(window)?.reply()?;
            Ok(attributes.map_state == MapState::VIEWABLE)
        }
    }

    /// Send each window named `title` the close request a window manager sends for ×.
    pub fn close(title: &str) -> anyhow::Result<usize> {
        let display = Display::open()?;
        let windows = display.windows_named(title)?;
        let protocols = display.atom("WM_PROTOCOLS")?;
        let delete = display.atom("WM_DELETE_WINDOW")?;
        for &window in &windows {
            // data[1] is the time of the click; 0 is CurrentTime.
            let message = ClientMessageEvent::new(32, window, protocols, [delete, 0, 0, 0, 0]);
            display
                .conn
                .send_event(false, window, EventMask::NO_EVENT, message)?;
        }
        // A round trip: the server has handled the messages before this returns.
        display.conn.get_input_focus()?.reply()?;
        Ok(windows.len())
    }

    /// How many windows are named `title`, and whether any of them is on screen.
    pub fn state(title: &str) -> anyhow::Result<(usize, bool)> {
        let display = Display::open()?;
        let windows = display.windows_named(title)?;
        let mut viewable = false;
        for &window in &windows {
            viewable |= display.viewable(window)?;
        }
        Ok((windows.len(), viewable))
    }
}
