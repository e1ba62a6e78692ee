//! One connection of the stand-in Hub: read the request, route it, answer, close.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::hub_answers::{file_answer, hub_path, listing_json, HubPath};
use super::{Behaviour, File, Logged, Repo, GATED_TOKEN, SHA};

struct Request {
    path: String,
    headers: HashMap<String, String>,
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_string();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    Some(Request { path, headers })
}

fn answer(mut stream: &TcpStream, status: u16, headers: &[(&str, String)], body: &[u8]) {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

pub fn serve(
    stream: TcpStream,
    server: &'static str,
    repos: &HashMap<String, Repo>,
    log: &Arc<Mutex<Vec<Logged>>>,
    cdn: &str,
) {
    let Some(req) = read_request(&stream) else {
        return;
    };
    log.lock().unwrap().push(Logged {
        server,
        path: req.path.clone(),
        range: req.headers.get("range").cloned(),
        authorization: req.headers.get("authorization").cloned(),
    });
    let not_found = br#"{"error":"Repository not found"}"#;
    let path = req.path.split('?').next().unwrap_or("").to_string();
    if server == "cdn" {
        // /cdn/{owner}/{name}/{file}
        let parts: Vec<&str> = path.trim_start_matches("/cdn/").splitn(3, '/').collect();
        match parts.as_slice() {
            [o, n, f] => match repos.get(&format!("{o}/{n}")).and_then(|r| r.files.get(*f)) {
                Some(file) => send_file(&stream, &req, file),
                None => answer(&stream, 404, &[], not_found),
            },
            _ => answer(&stream, 404, &[], not_found),
        }
        return;
    }
    let (repo_id, rest) = match hub_path(&path) {
        HubPath::Listing { repo } => (repo, None),
        HubPath::File { repo, file } => (repo, Some(file.to_string())),
        HubPath::Elsewhere => (String::new(), None),
    };
    let Some(repo) = repos.get(&repo_id) else {
        return answer(&stream, 404, &[], not_found);
    };
    let authorized = req.headers.get("authorization") == Some(&format!("Bearer {GATED_TOKEN}"));
    match repo.behaviour {
        Behaviour::Gated if !authorized => {
            return answer(
                &stream,
                401,
                &[],
                br#"{"error":"Access to model is restricted"}"#,
            )
        }
        Behaviour::RateLimited => return answer(&stream, 429, &[("Retry-After", "7".into())], b""),
        Behaviour::Slow => std::thread::sleep(Duration::from_secs(3)),
        _ => {}
    }
    match rest {
        None => {
            // sizes only when asked, as the Hub gives them
            let sized = req.path.contains("blobs=true");
            let names: Vec<(&str, Option<u64>)> = repo
                .files
                .iter()
                .map(|(n, f)| (n.as_str(), sized.then_some(f.claimed_len)))
                .collect();
            let body = listing_json(&repo_id, SHA, &names);
            answer(
                &stream,
                200,
                &[("Content-Type", "application/json".into())],
                body.as_bytes(),
            )
        }
        Some(file) => match repo.files.get(&file) {
            None => answer(&stream, 404, &[], b"Entry not found"),
            Some(_) if repo.behaviour == Behaviour::Redirects => answer(
                &stream,
                302,
                &[("Location", format!("{cdn}/cdn/{repo_id}/{file}"))],
                b"",
            ),
            Some(f) => send_file(&stream, &req, f),
        },
    }
}

/// The file, or the asked range of it (206 with Content-Range); bytes past what the server
/// holds are not sent, so a cut file answers short.
fn send_file(stream: &TcpStream, req: &Request, file: &File) {
    let range = req.headers.get("range").map(String::as_str);
    let a = file_answer(&file.bytes, file.claimed_len, range);
    let headers: Vec<(&str, String)> = a
        .content_range
        .map(|r| ("Content-Range", r))
        .into_iter()
        .collect();
    answer(stream, a.status, &headers, a.body)
}
