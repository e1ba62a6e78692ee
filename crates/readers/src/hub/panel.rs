//! The Hub id box, run by this module: the page holds an empty box and forwards its events
//! (`src/components/hub.rs`); the panel keeps what was typed, reads on request, and tells the
//! page what to show and what was read as messages (arrays of strings, the first saying what the
//! rest is):
//!
//! - `["form", markup]`: the id box, the Read button, the endpoint and the token (written when the
//!   panel opens and when the language changes, with what was typed);
//! - `["said", markup]`: the reading line, the refusal, what was read, the GGUF files to pick;
//! - `["model", arch, owner/name@revision, YYYY-MM-DD]`: a model read (`decode_arch` form);
//! - `["gguf", summary, owner/name@revision, YYYY-MM-DD, file]`: a GGUF file's header read;
//! - `["endpoint", base]`: the endpoint typed, valid (empty: huggingface.co);
//! - `["preload-local"]`: GGUF files are listed, so the llama.cpp module will be needed.
//!
//! This file is pure (tested natively); the browser's glue is `browser.rs`.

use vram_engine::{hub::HubEndpoint, hub::DEFAULT_ENDPOINT};
use vram_text::{escape, hub_box_text as text, Lang};

/// A GGUF repository's files, listed to pick from.
struct Listed {
    source: String,
    read_on: String,
    markup: String,
}

/// What the box holds and says.
pub struct Panel {
    lang: Lang,
    id: String,
    token: String,
    endpoint: String,
    bad_endpoint: bool,
    reading: bool,
    error: Option<[String; 2]>,
    lines: Option<[String; 2]>,
    listed: Option<Listed>,
}

/// What an event asks the browser's glue to do.
#[derive(Debug, PartialEq)]
pub enum Asked {
    /// Read the repository `id` (the Hub client's `read_hub`).
    Read {
        id: String,
        endpoint: String,
        token: String,
    },
    /// Read the GGUF file `parts` of `source` (the Hub client's `read_hub_gguf`).
    Pick {
        source: String,
        read_on: String,
        parts: String,
        endpoint: String,
        token: String,
    },
    /// Send these messages to the page.
    Say(Vec<Vec<String>>),
}

fn message(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| p.to_string()).collect()
}

impl Panel {
    /// A box opened in `lang` on the model `id` (empty: none) and the endpoint's base URL (empty:
    /// huggingface.co).
    pub fn new(lang: Lang, id: &str, endpoint: &str) -> Panel {
        let endpoint = if endpoint.is_empty() {
            DEFAULT_ENDPOINT
        } else {
            endpoint
        };
        Panel {
            lang,
            id: id.to_string(),
            token: String::new(),
            endpoint: endpoint.to_string(),
            bad_endpoint: false,
            reading: false,
            error: None,
            lines: None,
            listed: None,
        }
    }

    /// The form, with what was typed.
    pub fn form(&self) -> Vec<String> {
        let l = self.lang;
        let html = format!(
            r#"<label for="hub-id">{}</label><div class="row"><input type="text" id="hub-id" placeholder="Qwen/Qwen2.5-7B-Instruct" autocomplete="off" spellcheck="false" maxlength="300" value="{}"><button type="button" id="hub-read">{}</button></div><details id="hub-access"><summary>{}</summary><label for="hub-endpoint">{}</label><input type="url" id="hub-endpoint" spellcheck="false" maxlength="200" value="{}"><label for="hub-token">{}</label><input type="password" id="hub-token" autocomplete="off"><p class="note">{}</p></details>"#,
            escape(text(l, "hub_id")),
            escape(&self.id),
            escape(text(l, "hub_read")),
            escape(text(l, "hub_access")),
            escape(text(l, "hub_endpoint")),
            escape(&self.endpoint),
            escape(text(l, "hub_token")),
            escape(text(l, "hub_token_note")),
        );
        vec!["form".into(), html]
    }

    /// What the panel says under the form.
    pub fn said(&self) -> Vec<String> {
        let l = self.lang;
        let pick = |pair: &[String; 2]| pair[usize::from(l == Lang::Zh)].clone();
        let mut out = String::new();
        if self.reading {
            out.push_str(&format!(
                r#"<p id="hub-status" role="status">{}</p>"#,
                text(l, "reading")
            ));
        }
        if self.bad_endpoint {
            out.push_str(&format!(
                r#"<p class="input-error" role="alert">{}</p>"#,
                text(l, "hub_bad_endpoint")
            ));
        }
        if let Some(e) = &self.error {
            out.push_str(&format!(
                r#"<p class="input-error" id="hub-error" role="alert">{}</p>"#,
                escape(&pick(e))
            ));
        }
        if let Some(read) = &self.lines {
            let items: String = pick(read)
                .lines()
                .map(|x| format!("<li>{}</li>", escape(x)))
                .collect();
            out.push_str(&format!(r#"<ul class="note" id="hub-lines">{items}</ul>"#));
        }
        if let Some(listed) = &self.listed {
            out.push_str(&listed.markup);
        }
        vec!["said".into(), out]
    }

    /// A read may start when none is pending and the endpoint is valid; what an earlier read said
    /// goes.
    fn start(&mut self) -> bool {
        if self.reading || self.bad_endpoint {
            return false;
        }
        self.reading = true;
        self.error = None;
        self.lines = None;
        true
    }

    /// What the page's event asks: `kind` (`click`, `enter`, `input`, `change`, `lang`), the
    /// target's id, its value, and a clicked button's `data-parts` (empty: none).
    pub fn event(&mut self, kind: &str, target: &str, value: &str, parts: &str) -> Asked {
        match (kind, target) {
            ("lang", _) => {
                self.lang = Lang::from_key(value).unwrap_or(Lang::En);
                Asked::Say(vec![self.form(), self.said()])
            }
            ("input", "hub-id") => {
                self.id = value.to_string();
                Asked::Say(Vec::new())
            }
            ("input", "hub-token") => {
                self.token = value.to_string();
                Asked::Say(Vec::new())
            }
            ("change", "hub-endpoint") => {
                let endpoint = HubEndpoint::parse(value);
                self.bad_endpoint = endpoint.is_err();
                let mut say = vec![self.said()];
                if let Ok(e) = endpoint {
                    self.endpoint = value.to_string();
                    let base = if e == HubEndpoint::default() {
                        ""
                    } else {
                        e.base()
                    };
                    say.insert(0, message(&["endpoint", base]));
                }
                Asked::Say(say)
            }
            ("click", _) if !parts.is_empty() => {
                let Some((source, read_on)) = self
                    .listed
                    .as_ref()
                    .map(|l| (l.source.clone(), l.read_on.clone()))
                else {
                    return Asked::Say(Vec::new());
                };
                if !self.start() {
                    return Asked::Say(Vec::new());
                }
                Asked::Pick {
                    source,
                    read_on,
                    parts: parts.to_string(),
                    endpoint: self.endpoint_asked(),
                    token: self.token.clone(),
                }
            }
            ("click", "hub-read") | ("enter", "hub-id") => {
                if !self.start() {
                    return Asked::Say(Vec::new());
                }
                self.listed = None;
                Asked::Read {
                    id: self.id.clone(),
                    endpoint: self.endpoint_asked(),
                    token: self.token.clone(),
                }
            }
            _ => Asked::Say(Vec::new()),
        }
    }

    /// The endpoint as the Hub client takes it: empty for huggingface.co.
    fn endpoint_asked(&self) -> String {
        match HubEndpoint::parse(&self.endpoint) {
            Ok(e) if e != HubEndpoint::default() => e.base().to_string(),
            _ => String::new(),
        }
    }

    /// The Hub client's reply (its parts, `lib.rs`'s interface) to a read or a pick, as the
    /// page's messages; the panel says what was read or why nothing was.
    pub fn answered(&mut self, reply: Vec<String>) -> Vec<Vec<String>> {
        self.reading = false;
        let mut out = Vec::new();
        match <[String; 6]>::try_from(reply) {
            Ok([kind, arch, source, read_on, en, zh]) if kind == "hub" => {
                out.push(vec!["model".into(), arch, source, read_on]);
                self.lines = Some([en, zh]);
            }
            Ok([kind, source, read_on, en, zh, markup]) if kind == "gguf-list" => {
                self.lines = Some([en, zh]);
                self.listed = Some(Listed {
                    source,
                    read_on,
                    markup,
                });
                out.push(message(&["preload-local"]));
            }
            Ok(other) => self.refused(other.to_vec()),
            Err(reply) => match <[String; 7]>::try_from(reply) {
                Ok([kind, summary, source, read_on, name, en, zh]) if kind == "hub-gguf" => {
                    out.push(vec!["gguf".into(), summary, source, read_on, name]);
                    self.lines = Some([en, zh]);
                }
                Ok(other) => self.refused(other.to_vec()),
                Err(reply) => self.refused(reply),
            },
        }
        out.push(self.said());
        out
    }

    /// An `["error", en, zh]` reply said under the box; any other, that the reader failed.
    fn refused(&mut self, reply: Vec<String>) {
        self.error = Some(match <[String; 3]>::try_from(reply) {
            Ok([kind, en, zh]) if kind == "error" => [en, zh],
            _ => [Lang::En, Lang::Zh].map(|l| text(l, "readers_failed").to_string()),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(p: &Panel) -> String {
        p.said()[1].clone()
    }

    #[test]
    fn the_form_keeps_what_was_typed_through_a_language_switch_and_escapes_it() {
        let mut p = Panel::new(Lang::En, "org/a<b>", "");
        assert!(p.form()[1].contains(r#"value="org/a&lt;b&gt;""#));
        assert!(p.form()[1].contains(&format!(r#"value="{DEFAULT_ENDPOINT}""#)));
        p.event("input", "hub-id", "Qwen/Qwen2.5-7B", "");
        let Asked::Say(said) = p.event("lang", "", "zh", "") else {
            panic!("a language switch says the form again");
        };
        assert_eq!(said[0][0], "form");
        assert!(said[0][1].contains(r#"value="Qwen/Qwen2.5-7B""#));
        assert!(said[0][1].contains(text(Lang::Zh, "hub_read")));
    }

    #[test]
    fn a_read_asks_for_the_typed_id_once_and_says_what_came_back() {
        let mut p = Panel::new(Lang::En, "", "");
        p.event("input", "hub-id", "org/model", "");
        p.event("input", "hub-token", "hf_secret", "");
        let asked = p.event("click", "hub-read", "", "");
        assert_eq!(
            asked,
            Asked::Read {
                id: "org/model".into(),
                endpoint: String::new(),
                token: "hf_secret".into()
            }
        );
        assert!(said(&p).contains(r#"id="hub-status""#));
        // a second click while reading asks nothing
        assert_eq!(p.event("enter", "hub-id", "", ""), Asked::Say(Vec::new()));
        let reply = [
            "hub",
            "ARCH",
            "org/model@abc",
            "2026-12-02",
            "read 1\nread 2",
            "读 1",
        ]
        .map(String::from)
        .to_vec();
        let out = p.answered(reply);
        assert_eq!(out[0], ["model", "ARCH", "org/model@abc", "2026-12-02"]);
        assert!(!out[1][1].contains("hub-status"));
        assert!(out[1][1].contains("<li>read 1</li><li>read 2</li>"));
    }

    #[test]
    fn a_refusal_a_bad_endpoint_and_a_gguf_pick_each_say_what_the_page_needs() {
        let mut p = Panel::new(Lang::En, "org/gated", "");
        p.event("click", "hub-read", "", "");
        let out = p.answered(["error", "gated <401>", "受限"].map(String::from).to_vec());
        assert!(out[0][1].contains(r#"id="hub-error" role="alert">gated &lt;401&gt;</p>"#));
        // a broken reply is the reader failing, not a crash
        p.event("click", "hub-read", "", "");
        let out = p.answered(vec!["nonsense".into()]);
        assert!(out[0][1].contains(&escape(text(Lang::En, "readers_failed"))));
        // an endpoint that is not one blocks reading; a good one goes to the page
        let Asked::Say(said) = p.event("change", "hub-endpoint", "ftp://x", "") else {
            panic!()
        };
        assert_eq!(said.len(), 1);
        assert!(said[0][1].contains(text(Lang::En, "hub_bad_endpoint")));
        assert_eq!(p.event("click", "hub-read", "", ""), Asked::Say(Vec::new()));
        let Asked::Say(said) = p.event("change", "hub-endpoint", "https://hf-mirror.com", "")
        else {
            panic!()
        };
        assert_eq!(said[0], ["endpoint", "https://hf-mirror.com"]);
        // a GGUF repository lists files; a pick reads one of them from that repository
        p.event("click", "hub-read", "", "");
        let listing = [
            "gguf-list",
            "org/m-GGUF@abc",
            "2026-12-02",
            "2 files",
            "2 个文件",
            "<ul id=\"l\"></ul>",
        ];
        let out = p.answered(listing.map(String::from).to_vec());
        assert_eq!(out[0], ["preload-local"]);
        assert!(out[1][1].ends_with("<ul id=\"l\"></ul>"));
        let asked = p.event("click", "", "", "m-Q4_K_M.gguf");
        assert_eq!(
            asked,
            Asked::Pick {
                source: "org/m-GGUF@abc".into(),
                read_on: "2026-12-02".into(),
                parts: "m-Q4_K_M.gguf".into(),
                endpoint: "https://hf-mirror.com".into(),
                token: String::new()
            }
        );
        let read = [
            "hub-gguf",
            "SUMMARY",
            "org/m-GGUF@abc",
            "2026-12-02",
            "m-Q4_K_M.gguf",
            "header",
            "文件头",
        ];
        let out = p.answered(read.map(String::from).to_vec());
        assert_eq!(
            out[0],
            [
                "gguf",
                "SUMMARY",
                "org/m-GGUF@abc",
                "2026-12-02",
                "m-Q4_K_M.gguf"
            ]
        );
        // the list stays to pick another file from
        assert!(out[1][1].contains("<li>header</li>") && out[1][1].contains("<ul id=\"l\">"));
    }
}
