//! The Hub id box, run by this module: the page holds an empty box and forwards its events
//! (`src/components/hub.rs`, each a [`HubEvent`]); the panel keeps what was typed, reads on
//! request, and tells the page what to show and what was read as [`HubMessage`]s: its form and
//! what it says as markup, a model or a GGUF file read, a valid endpoint typed, and that the
//! llama.cpp module will be needed.
//!
//! This file is pure (tested natively); the browser's glue is `browser.rs`.

use vram_engine::{hub::HubEndpoint, hub::DEFAULT_ENDPOINT};
use vram_messages::{HubEvent, HubMessage};
use vram_text::{escape, hub_box_text as text, Lang};

use super::HubReply;

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
    Say(Vec<HubMessage>),
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
    pub fn form(&self) -> HubMessage {
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
        HubMessage::Form(html)
    }

    /// What the panel says under the form.
    pub fn said(&self) -> HubMessage {
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
        HubMessage::Said(out)
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

    /// What the page's event asks.
    pub fn event(&mut self, event: &HubEvent) -> Asked {
        match event {
            HubEvent::Lang(key) => {
                self.lang = Lang::from_key(key).unwrap_or(Lang::En);
                Asked::Say(vec![self.form(), self.said()])
            }
            HubEvent::Input { target, value } if target == "hub-id" => {
                self.id = value.clone();
                Asked::Say(Vec::new())
            }
            HubEvent::Input { target, value } if target == "hub-token" => {
                self.token = value.clone();
                Asked::Say(Vec::new())
            }
            HubEvent::Change { target, value } if target == "hub-endpoint" => {
                let endpoint = HubEndpoint::parse(value);
                self.bad_endpoint = endpoint.is_err();
                let mut say = vec![self.said()];
                if let Ok(e) = endpoint {
                    self.endpoint = value.clone();
                    let base = if e == HubEndpoint::default() {
                        ""
                    } else {
                        e.base()
                    };
                    say.insert(0, HubMessage::Endpoint(base.to_string()));
                }
                Asked::Say(say)
            }
            HubEvent::Pick(parts) if !parts.is_empty() => {
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
                    parts: parts.clone(),
                    endpoint: self.endpoint_asked(),
                    token: self.token.clone(),
                }
            }
            HubEvent::Click { target } if target == "hub-read" => self.read(),
            HubEvent::Enter { target } if target == "hub-id" => self.read(),
            _ => Asked::Say(Vec::new()),
        }
    }

    /// A read of the typed id, unless one is pending.
    fn read(&mut self) -> Asked {
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

    /// The endpoint as the Hub client takes it: empty for huggingface.co.
    fn endpoint_asked(&self) -> String {
        match HubEndpoint::parse(&self.endpoint) {
            Ok(e) if e != HubEndpoint::default() => e.base().to_string(),
            _ => String::new(),
        }
    }

    /// The Hub client's reply to a read or a pick (None: the llama.cpp module's reader did not
    /// load), as the page's messages; the panel says what was read or why nothing was.
    pub fn answered(&mut self, reply: Option<HubReply>) -> Vec<HubMessage> {
        self.reading = false;
        let mut out = Vec::new();
        match reply {
            Some(HubReply::Model {
                arch,
                source,
                read_on,
                lines,
            }) => {
                out.push(HubMessage::Model {
                    arch,
                    source,
                    read_on,
                });
                self.lines = Some(lines);
            }
            Some(HubReply::GgufList {
                source,
                read_on,
                said,
                markup,
            }) => {
                self.lines = Some(said);
                self.listed = Some(Listed {
                    source,
                    read_on,
                    markup,
                });
                out.push(HubMessage::PreloadLocal);
            }
            Some(HubReply::Gguf {
                summary,
                source,
                read_on,
                name,
                lines,
            }) => {
                out.push(HubMessage::Gguf {
                    summary,
                    source,
                    read_on,
                    name,
                });
                self.lines = Some(lines);
            }
            Some(HubReply::Error(said)) => self.error = Some(said),
            None => {
                self.error =
                    Some([Lang::En, Lang::Zh].map(|l| text(l, "readers_failed").to_string()))
            }
        }
        out.push(self.said());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(p: &Panel) -> String {
        markup(p.said())
    }

    fn markup(m: HubMessage) -> String {
        match m {
            HubMessage::Form(html) | HubMessage::Said(html) => html,
            other => panic!("not markup: {other:?}"),
        }
    }

    fn input(target: &str, value: &str) -> HubEvent {
        HubEvent::Input {
            target: target.into(),
            value: value.into(),
        }
    }

    fn click_read() -> HubEvent {
        HubEvent::Click {
            target: "hub-read".into(),
        }
    }

    fn change_endpoint(value: &str) -> HubEvent {
        HubEvent::Change {
            target: "hub-endpoint".into(),
            value: value.into(),
        }
    }

    fn both(en: &str, zh: &str) -> [String; 2] {
        [en.into(), zh.into()]
    }

    #[test]
    fn the_form_keeps_what_was_typed_through_a_language_switch_and_escapes_it() {
        let mut p = Panel::new(Lang::En, "org/a<b>", "");
        assert!(markup(p.form()).contains(r#"value="org/a&lt;b&gt;""#));
        assert!(markup(p.form()).contains(&format!(r#"value="{DEFAULT_ENDPOINT}""#)));
        p.event(&input("hub-id", "Qwen/Qwen2.5-7B"));
        let Asked::Say(mut said) = p.event(&HubEvent::Lang("zh".into())) else {
            panic!("a language switch says the form again");
        };
        let HubMessage::Form(form) = said.remove(0) else {
            panic!("the form comes first");
        };
        assert!(form.contains(r#"value="Qwen/Qwen2.5-7B""#));
        assert!(form.contains(text(Lang::Zh, "hub_read")));
    }

    #[test]
    fn a_read_asks_for_the_typed_id_once_and_says_what_came_back() {
        let mut p = Panel::new(Lang::En, "", "");
        p.event(&input("hub-id", "org/model"));
        p.event(&input("hub-token", "hf_secret"));
        let asked = p.event(&click_read());
        assert_eq!(
            asked,
            Asked::Read {
                id: "org/model".into(),
                endpoint: String::new(),
                token: "hf_secret".into()
            }
        );
        assert!(said(&p).contains(r#"id="hub-status""#));
        // a second read while reading asks nothing
        let enter = HubEvent::Enter {
            target: "hub-id".into(),
        };
        assert_eq!(p.event(&enter), Asked::Say(Vec::new()));
        let mut out = p.answered(Some(HubReply::Model {
            arch: "ARCH".into(),
            source: "org/model@abc".into(),
            read_on: "2026-12-02".into(),
            lines: both("read 1\nread 2", "读 1"),
        }));
        assert_eq!(
            out[0],
            HubMessage::Model {
                arch: "ARCH".into(),
                source: "org/model@abc".into(),
                read_on: "2026-12-02".into()
            }
        );
        let after = markup(out.remove(1));
        assert!(!after.contains("hub-status"));
        assert!(after.contains("<li>read 1</li><li>read 2</li>"));
    }

    #[test]
    fn a_refusal_a_bad_endpoint_and_a_gguf_pick_each_say_what_the_page_needs() {
        let mut p = Panel::new(Lang::En, "org/gated", "");
        p.event(&click_read());
        let out = p.answered(Some(HubReply::Error(both("gated <401>", "受限"))));
        let said_now = markup(out[0].clone());
        assert!(said_now.contains(r#"id="hub-error" role="alert">gated &lt;401&gt;</p>"#));
        // a reader that did not load is said as the reader failing, not a crash
        p.event(&click_read());
        let out = p.answered(None);
        assert!(markup(out[0].clone()).contains(&escape(text(Lang::En, "readers_failed"))));
        // an endpoint that is not one blocks reading; a good one goes to the page
        let Asked::Say(said) = p.event(&change_endpoint("ftp://x")) else {
            panic!()
        };
        assert_eq!(said.len(), 1);
        assert!(markup(said[0].clone()).contains(text(Lang::En, "hub_bad_endpoint")));
        assert_eq!(p.event(&click_read()), Asked::Say(Vec::new()));
        let Asked::Say(said) = p.event(&change_endpoint("https://hf-mirror.com")) else {
            panic!()
        };
        assert_eq!(
            said[0],
            HubMessage::Endpoint("https://hf-mirror.com".into())
        );
        // a GGUF repository lists files; a pick reads one of them from that repository
        p.event(&click_read());
        let out = p.answered(Some(HubReply::GgufList {
            source: "org/m-GGUF@abc".into(),
            read_on: "2026-12-02".into(),
            said: both("2 files", "2 个文件"),
            markup: "<ul id=\"l\"></ul>".into(),
        }));
        assert_eq!(out[0], HubMessage::PreloadLocal);
        assert!(markup(out[1].clone()).ends_with("<ul id=\"l\"></ul>"));
        let asked = p.event(&HubEvent::Pick("m-Q4_K_M.gguf".into()));
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
        let out = p.answered(Some(HubReply::Gguf {
            summary: "SUMMARY".into(),
            source: "org/m-GGUF@abc".into(),
            read_on: "2026-12-02".into(),
            name: "m-Q4_K_M.gguf".into(),
            lines: both("header", "文件头"),
        }));
        assert_eq!(
            out[0],
            HubMessage::Gguf {
                summary: "SUMMARY".into(),
                source: "org/m-GGUF@abc".into(),
                read_on: "2026-12-02".into(),
                name: "m-Q4_K_M.gguf".into()
            }
        );
        // the list stays to pick another file from
        let after = markup(out[1].clone());
        assert!(after.contains("<li>header</li>") && after.contains("<ul id=\"l\">"));
    }
}
