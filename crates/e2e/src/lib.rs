//! A small harness for end-to-end tests: a static file server on a free loopback port, a
//! chromedriver process, and a WebDriver session in headless Chromium. Standard library and
//! serde_json only; the browser is Debian's chromium, never a downloaded one.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub mod draws;
pub mod frames;
mod hub;
pub mod profile;
pub use hub::{HubFile, SeenRequest, StandInHub, SHA as HUB_SHA};

/// The built site to test: $VRAM_E2E_DIST, or dist/ at the repository root.
pub fn dist_dir() -> PathBuf {
    match std::env::var_os("VRAM_E2E_DIST") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dist"),
    }
}

/// Serves a folder's files on 127.0.0.1 until dropped.
pub struct StaticServer {
    pub port: u16,
    stop: Arc<AtomicBool>,
}

fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// Files the server answers from memory instead of the folder: (path without the leading `/`, its
/// text), typed by the path's extension.
pub type ExtraPages = &'static [(&'static str, &'static str)];

impl StaticServer {
    pub fn start(root: PathBuf) -> StaticServer {
        StaticServer::start_full(root, &[], None)
    }

    /// Serves `root`, and `extra` pages at their paths (the benchmark's own test pages).
    pub fn start_with(root: PathBuf, extra: ExtraPages) -> StaticServer {
        StaticServer::start_full(root, extra, None)
    }

    /// Serves `root`, and `hub` under `/hub` when given (see [`StandInHub`]).
    pub fn start_with_hub(root: PathBuf, hub: Option<StandInHub>) -> StaticServer {
        StaticServer::start_full(root, &[], hub)
    }

    fn start_full(root: PathBuf, extra: ExtraPages, hub: Option<StandInHub>) -> StaticServer {
        let hub = hub.map(Arc::new);
        assert!(
            root.join("index.html").is_file(),
            "no built page at {}: run the README's test command (it builds dist/ first)",
            root.display()
        );
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().expect("bound").port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let root = root.clone();
                let hub = hub.clone();
                thread::spawn(move || serve_one(stream, &root, extra, hub.as_deref()));
            }
        });
        StaticServer { port, stop }
    }

    pub fn url(&self, path_and_query: &str) -> String {
        format!("http://127.0.0.1:{}{}", self.port, path_and_query)
    }

    /// Stops serving: the port is closed, so a request after this is refused (the page, already
    /// loaded, stays open in the browser).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve_one(mut stream: TcpStream, root: &Path, extra: ExtraPages, hub: Option<&StandInHub>) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    let mut range = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).map(|n| n == 0).unwrap_or(true) || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("range") {
                range = Some(value.trim().to_string());
            }
        }
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split(['?', '#']).next().unwrap_or("/");
    if let (Some(hub), Some(below)) = (hub, path.strip_prefix("/hub/")) {
        let a = hub.answer(&format!("/{below}"), range.as_deref());
        let mut head = format!("HTTP/1.1 {}\r\n", a.status);
        for h in &a.headers {
            head.push_str(&format!("{h}\r\n"));
        }
        head.push_str(&format!(
            "Content-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
            a.body.len()
        ));
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&a.body);
        let _ = stream.shutdown(Shutdown::Both);
        return;
    }
    let rel = path.trim_start_matches('/');
    let file = if rel.is_empty() || rel.contains("..") {
        root.join("index.html")
    } else {
        root.join(rel)
    };
    let page = extra.iter().find(|(p, _)| *p == rel);
    let (status, body, kind) = match (page, std::fs::read(&file)) {
        (Some((_, text)), _) => ("200 OK", text.as_bytes().to_vec(), mime(Path::new(rel))),
        (None, Ok(b)) => ("200 OK", b, mime(&file)),
        (None, Err(_)) => ("404 Not Found", b"not found".to_vec(), "text/plain"),
    };
    let head = format!("HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n", body.len());
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.shutdown(Shutdown::Both);
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A chromedriver process on a free port, killed when dropped.
pub struct Driver {
    pub port: u16,
    child: Child,
}

impl Driver {
    pub fn start() -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver on PATH (the README's test command installs chromium-driver)");
        let d = Driver { port, child };
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(20) {
            if let Ok((200, body)) = http(port, "GET", "/status", None) {
                if body["value"]["ready"].as_bool() == Some(true) {
                    return d;
                }
            }
            thread::sleep(Duration::from_millis(100));
        }
        panic!("chromedriver did not become ready on port {port}");
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request to chromedriver: (status, JSON body).
fn http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> std::io::Result<(u16, Value)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    let payload = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{payload}",
        payload.len()
    );
    s.write_all(req.as_bytes())?;
    // read the head, then exactly Content-Length bytes (chromedriver keeps connections open)
    let mut reader = BufReader::new(s);
    let mut status_line = String::new();
    reader.read_line(&mut status_line)?;
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let mut length = None;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse::<usize>().ok();
        }
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
    }
    let body = if let Some(n) = length {
        let mut buf = vec![0; n];
        reader.read_exact(&mut buf)?;
        String::from_utf8_lossy(&buf).into_owned()
    } else if chunked {
        let mut out = String::new();
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 {
                break;
            }
            let mut buf = vec![0; n + 2];
            reader.read_exact(&mut buf)?;
            out.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
        out
    } else {
        let mut rest = String::new();
        reader.read_to_string(&mut rest)?;
        rest
    };
    Ok((status, serde_json::from_str(&body).unwrap_or(Value::Null)))
}

/// A script function that calls its argument once the next frame has been drawn and the work
/// that follows it has run.
pub const AFTER_THE_PAINT: &str = "((f) => requestAnimationFrame(() => setTimeout(f, 20)))";

/// A WebDriver session in headless Chromium with a fresh profile.
pub struct Session {
    port: u16,
    id: String,
    _profile: TempDir,
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Session {
    /// A new browser window of `width` × `height` CSS pixels.
    pub fn new(driver: &Driver, width: u32, height: u32) -> Session {
        Session::with_args(driver, width, height, &[], false)
    }

    /// A new browser window with extra Chromium switches; with `trace`, Chromium's timeline
    /// (scripting, style, layout, paint) is recorded for [`Session::timeline`].
    pub fn with_args(
        driver: &Driver,
        width: u32,
        height: u32,
        extra: &[&str],
        trace: bool,
    ) -> Session {
        let profile = std::env::temp_dir().join(format!(
            "vram-e2e-{}-{}",
            std::process::id(),
            Instant::now().elapsed().as_nanos() ^ rand_seed()
        ));
        std::fs::create_dir_all(&profile).expect("temp profile");
        let binary = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .unwrap_or("chromium");
        let mut chrome = json!({
            "binary": binary,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--disable-quic",
                     format!("--user-data-dir={}", profile.display()), format!("--window-size={width},{height}")]
        });
        if let Some(args) = chrome["args"].as_array_mut() {
            args.extend(extra.iter().map(|a| json!(a)));
            // more switches for an experiment, e.g. VRAM_E2E_CHROME_ARGS=--js-flags=--no-liftoff
            if let Some(more) = std::env::var_os("VRAM_E2E_CHROME_ARGS") {
                let more = more.to_string_lossy().into_owned();
                args.extend(more.split_whitespace().map(|a| json!(a)));
            }
        }
        if width < 600 {
            // a phone: its viewport, pixel ratio and touch, as Chrome's device emulation gives them
            chrome["mobileEmulation"] = json!({"deviceMetrics": {"width": width, "height": height, "pixelRatio": 3.0, "touch": true}});
        }
        let mut logging = json!({"browser": "ALL"});
        if trace {
            // VRAM_BENCH_TRACE_CATEGORIES: other categories, e.g. `viz` for the compositor's damage
            logging["performance"] = json!("ALL");
            chrome["perfLoggingPrefs"] = json!({"enableNetwork": false, "enablePage": false,
                "traceCategories": std::env::var("VRAM_BENCH_TRACE_CATEGORIES").unwrap_or("devtools.timeline,disabled-by-default-devtools.timeline".into())});
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:loggingPrefs": logging,
            "goog:chromeOptions": chrome
        }}});
        let (status, v) =
            http(driver.port, "POST", "/session", Some(&caps)).expect("chromedriver answers");
        let id = v["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session ({status}): {v}"))
            .to_string();
        Session {
            port: driver.port,
            id,
            _profile: TempDir(profile),
        }
    }

    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let full = format!("/session/{}{}", self.id, path);
        let (status, v) =
            http(self.port, method, &full, body.as_ref()).expect("chromedriver answers");
        if status != 200 {
            panic!(
                "WebDriver {method} {path} failed ({status}): {}",
                v["value"]
            );
        }
        v["value"].clone()
    }

    pub fn goto(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    pub fn url(&self) -> String {
        self.cmd("GET", "/url", None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Runs JavaScript in the page and returns its result.
    pub fn js(&self, script: &str, args: Vec<Value>) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// Runs asynchronous JavaScript: the script calls `arguments[arguments.length - 1](result)`.
    pub fn js_async(&self, script: &str, args: Vec<Value>) -> Value {
        self.cmd(
            "POST",
            "/execute/async",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// Waits until `css` matches an element; panics after `secs`.
    pub fn wait_for(&self, css: &str, secs: u64) {
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(secs) {
            if self.exists(css) {
                return;
            }
            if self.exists("#panic-banner:not([hidden])") {
                break;
            }
            thread::sleep(Duration::from_millis(50));
        }
        let banner = self.text_of("#panic-banner");
        panic!(
            "{css} did not appear within {secs} s (panic banner: {banner:?}; console: {:?})",
            self.console_errors()
        );
    }

    /// Waits until `f` holds, re-checking every 50 ms.
    pub fn wait_until(&self, what: &str, secs: u64, f: impl Fn(&Session) -> bool) {
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(secs) {
            if f(self) {
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
        panic!("timed out waiting for {what}");
    }

    /// `expr` of `css` (`arguments[0]`) once the page has no work waiting: the next frame is
    /// drawn and nothing says `data-stale` (a panel held while a slider moves, a module loading),
    /// so a read right after a change sees what a user who looks there a moment later sees.
    pub fn read_settled(&self, expr: &str, css: &str) -> Value {
        let script = format!(
            "const done = arguments[arguments.length - 1]; const t0 = performance.now();
             const go = () => {{
               if (document.querySelector('[data-stale]') && performance.now() - t0 < 5000) return setTimeout(go, 10);
               done((() => {{ {expr} }})());
             }};
             {AFTER_THE_PAINT}(go);"
        );
        self.js_async(&script, vec![json!(css)])
    }

    pub fn exists(&self, css: &str) -> bool {
        self.read_settled("return document.querySelector(arguments[0]) !== null", css)
            .as_bool()
            .unwrap_or(false)
    }

    pub fn count(&self, css: &str) -> u64 {
        self.read_settled("return document.querySelectorAll(arguments[0]).length", css)
            .as_u64()
            .unwrap_or(0)
    }

    /// The visible text of the first element matching `css` ("" when none).
    pub fn text_of(&self, css: &str) -> String {
        self.read_settled(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : ''",
            css,
        )
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// The `value` property of an input or select.
    /// The share box's link once it holds the page's current state (the page writes it when
    /// input pauses, and marks it `data-settled="1"`).
    pub fn share_link(&self) -> String {
        self.wait_until("the share link", 10, |p| {
            p.exists("#share-url[data-settled='1']")
        });
        self.value_of("#share-url")
    }

    pub fn value_of(&self, css: &str) -> String {
        self.read_settled(
            "const e = document.querySelector(arguments[0]); return e ? String(e.value) : ''",
            css,
        )
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// Sets an input's value and fires `event` ("input" for sliders, "change" for boxes and selects), as a user's edit does.
    pub fn set(&self, css: &str, value: &str, event: &str) {
        let ok = self.js(
            "const e = document.querySelector(arguments[0]); if (!e) return false; e.value = arguments[1]; e.dispatchEvent(new Event(arguments[2], {bubbles: true})); return true;",
            vec![json!(css), json!(value), json!(event)],
        );
        assert_eq!(ok, json!(true), "no element {css}");
    }

    /// The WebDriver id of the element matching `css`, once the work that follows the last
    /// change's paint has run (a control that a change brings appears in the frame after it).
    fn element(&self, css: &str) -> String {
        let settle = format!("{AFTER_THE_PAINT}(arguments[arguments.length - 1]);");
        self.js_async(&settle, vec![]);
        let el = self.cmd(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        el.as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .expect("element id")
            .to_string()
    }

    /// Clicks the element matching `css` through WebDriver (a real click at its position).
    pub fn click(&self, css: &str) {
        let id = self.element(css);
        self.cmd("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    /// Types into the element matching `css` through WebDriver key events.
    pub fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css);
        self.cmd(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        );
    }

    /// Presses one key (a WebDriver key code such as "\u{E014}", ArrowRight) on the element
    /// matching `css`: WebDriver focuses it and the browser sees trusted key events.
    pub fn press(&self, css: &str, key: &str) {
        self.type_into(css, key);
    }

    /// Runs a Chrome DevTools Protocol command (e.g. media emulation) through chromedriver.
    pub fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.cmd(
            "POST",
            "/goog/cdp/execute",
            Some(json!({ "cmd": cmd, "params": params })),
        )
    }

    /// A DevTools command that may fail (a node of a page since left): its result, or `None`.
    pub fn try_cdp(&self, cmd: &str, params: Value) -> Option<Value> {
        let full = format!("/session/{}/goog/cdp/execute", self.id);
        let body = json!({ "cmd": cmd, "params": params });
        match http(self.port, "POST", &full, Some(&body)) {
            Ok((200, v)) => Some(v["value"].clone()),
            _ => None,
        }
    }

    /// The trace events recorded since the last call (a session started with `trace`).
    pub fn timeline(&self) -> Vec<Value> {
        let full = format!("/session/{}/se/log", self.id);
        let (_, v) = http(
            self.port,
            "POST",
            &full,
            Some(&json!({"type": "performance"})),
        )
        .unwrap_or((0, Value::Null));
        let entries = v["value"].as_array().cloned().unwrap_or_default();
        entries
            .iter()
            .filter_map(|e| serde_json::from_str::<Value>(e["message"].as_str()?).ok())
            .filter(|m| m["message"]["method"] == "Tracing.dataCollected")
            .map(|m| m["message"]["params"].clone())
            .collect()
    }

    /// Browser console entries at level SEVERE (errors, failed loads, CSP violations).
    pub fn console_errors(&self) -> Vec<String> {
        let full = format!("/session/{}/se/log", self.id);
        let (status, v) = http(self.port, "POST", &full, Some(&json!({"type": "browser"})))
            .unwrap_or((0, Value::Null));
        let v = if status == 200 {
            v
        } else {
            http(
                self.port,
                "POST",
                &format!("/session/{}/log", self.id),
                Some(&json!({"type": "browser"})),
            )
            .map(|r| r.1)
            .unwrap_or(Value::Null)
        };
        v["value"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|e| e["level"] == "SEVERE")
                    .map(|e| e["message"].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Fails the test when the console shows any error.
    pub fn assert_no_console_errors(&self) {
        let errors = self.console_errors();
        assert!(errors.is_empty(), "console errors: {errors:#?}");
    }
}

fn rand_seed() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = http(self.port, "DELETE", &format!("/session/{}", self.id), None);
    }
}

/// A server, a driver and a browser, started together for one test.
pub struct Page {
    pub server: StaticServer,
    pub session: Session,
    _driver: Driver,
}

impl Page {
    /// Opens the built page at `path_and_query` (e.g. "/?v=1&b=8") and waits for the app to mount.
    pub fn open(path_and_query: &str) -> Page {
        Page::open_sized(path_and_query, 1280, 1000)
    }

    pub fn open_sized(path_and_query: &str, width: u32, height: u32) -> Page {
        Page::open_with(path_and_query, width, height, None)
    }

    /// Opens the page with a stand-in Hub on the same origin, under `/hub`.
    pub fn open_with_hub(path_and_query: &str, hub: StandInHub) -> Page {
        Page::open_with(path_and_query, 1280, 1000, Some(hub))
    }

    fn open_with(path_and_query: &str, width: u32, height: u32, hub: Option<StandInHub>) -> Page {
        let server = StaticServer::start_with_hub(dist_dir(), hub);
        let driver = Driver::start();
        let session = Session::new(&driver, width, height);
        session.goto(&server.url(path_and_query));
        session.wait_for("#total", 30);
        Page {
            server,
            session,
            _driver: driver,
        }
    }
}

impl std::ops::Deref for Page {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.session
    }
}
