//! A stand-in Hugging Face Hub for the tests, on 127.0.0.1 with `std::net` only: the Hub's URL
//! layout (`/api/models/{repo}[/revision/{rev}]`, `/{repo}/resolve/{rev}/{file}`), Range
//! requests, a redirect to a second "CDN" port, a gated repository (401 without the token), 404s,
//! a 429, a cut header and a slow answer. Every request is logged so tests can check what was
//! read and where the token went.

#![allow(dead_code)]

mod http;
mod repos;

use vram_test_support::{checkpoints, gguf_split, hub_answers};

use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::thread;

pub use repos::{fixture_repos, split_gguf_parts, GATED_TOKEN, SHA, SPLIT_FIXTURE};

/// A file the server holds: its bytes (a header prefix for weight files) and the length it
/// claims in Content-Range (the whole file's, data included).
#[derive(Clone)]
pub struct File {
    pub bytes: Vec<u8>,
    pub claimed_len: u64,
}

/// How a repository answers.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub enum Behaviour {
    #[default]
    Normal,
    /// 401 without `Authorization: Bearer GATED_TOKEN`.
    Gated,
    /// Its files redirect (302) to the CDN port.
    Redirects,
    /// Answers the listing after 3 s.
    Slow,
    /// 429 with Retry-After: 7.
    RateLimited,
}

#[derive(Clone, Default)]
pub struct Repo {
    pub files: HashMap<String, File>,
    pub behaviour: Behaviour,
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Logged {
    /// "hub" or "cdn".
    pub server: &'static str,
    pub path: String,
    pub range: Option<String>,
    pub authorization: Option<String>,
}

pub struct HubServer {
    pub endpoint: String,
    pub cdn: String,
    pub log: Arc<Mutex<Vec<Logged>>>,
}

impl HubServer {
    /// Starts both ports; the threads end with the test process.
    pub fn start(repos: HashMap<String, Repo>) -> HubServer {
        let hub = TcpListener::bind("127.0.0.1:0").unwrap();
        let cdn = TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", hub.local_addr().unwrap());
        let cdn_base = format!("http://{}", cdn.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let repos = Arc::new(repos);
        for (listener, name) in [(hub, "hub"), (cdn, "cdn")] {
            let (repos, log, cdn_base) = (repos.clone(), log.clone(), cdn_base.clone());
            thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    let (repos, log, cdn_base) = (repos.clone(), log.clone(), cdn_base.clone());
                    thread::spawn(move || http::serve(stream, name, &repos, &log, &cdn_base));
                }
            });
        }
        HubServer {
            endpoint,
            cdn: cdn_base,
            log,
        }
    }

    pub fn requests(&self) -> Vec<Logged> {
        self.log.lock().unwrap().clone()
    }
}
