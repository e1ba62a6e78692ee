//! The settings registry: one descriptor per setting of a scenario.
//!
//! The link codec, the CLI's flags and `--help`, range checks, the solver's bounds, the page's
//! controls and panels, and the property tests' scenarios all read [`SETTINGS`]. Each setting is
//! declared once, in `list.rs`: the [`Scenario`] field it sets, its default, its descriptor and its
//! [`Place`] on the page come from that one entry. Adding a setting means that entry, its physics,
//! and its label and help in both languages (`vram-text`, keyed by [`Setting::id`]; a choice's
//! labels by its link key).
//! The model (`m`, `p`, `cfg`, `mn`) and the page's language are not settings of the budget and are
//! read by the link codec itself.

mod applies;
mod declare;
mod field;
mod list;
mod place;

use crate::dtype::WeightFormat;
use crate::llamacpp::TensorShares;
use crate::scenario::LoraTargets;
use crate::weight_parts::{WeightPart, PART_FOLLOWS};

pub use list::{Scenario, SETTINGS};
pub use place::{Look, Panel, Place};

/// A setting's value as the registry reads and writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingValue {
    Number(u64),
    /// The key of one choice.
    Choice(&'static str),
    On(bool),
    Targets(LoraTargets),
    /// Each GPU's share of the layers.
    Shares(TensorShares),
}

/// The kind of input a setting takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingKind {
    /// A whole number in `min..=max`; the page's slider spans `slider` on a log scale (`log`),
    /// stepping through powers of two when `pow2`.
    Number {
        min: u64,
        max: u64,
        slider: (u64, u64),
        log: bool,
        pow2: bool,
    },
    /// One of a list of keys.
    Choice,
    /// On or off (`1` / `0` in links and flags).
    Switch,
    /// A set of LoRA target modules ("q,v" or "all").
    Targets,
    /// A share per GPU ("3,1"), or `even`.
    Shares,
}

/// Why a value was refused for a setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not a key this setting knows.
    NotAChoice,
    /// Not a whole number within the setting's range.
    OutOfRange { min: u64, max: u64 },
    /// A switch takes 0 or 1.
    NotASwitch,
    /// Not a list of LoRA target modules.
    NotTargets,
    /// Not a list of shares, one per GPU (or `even`).
    NotShares,
}

/// One setting: how it is named in links, on the command line and on the page, what it accepts,
/// and where it lives on a [`Scenario`].
pub struct Setting {
    /// The link key (`b` in `?b=8`); never changes, shared links depend on it.
    pub key: &'static str,
    /// The CLI flag without `--`; never changes, scripts depend on it.
    pub flag: &'static str,
    /// Stable id of the page's control, and the key of its label and help texts.
    pub id: &'static str,
    /// What the CLI's `--help` shows as the value (`N`, `0|1`, or the choices).
    pub value_hint: &'static str,
    pub kind: SettingKind,
    /// Whether the setting means something for this scenario (its job, its weights).
    pub applies: fn(&Scenario) -> bool,
    /// Where the page shows it.
    pub place: Place,
    read: fn(&Scenario) -> SettingValue,
    write: fn(&mut Scenario, SettingValue),
    /// Every key a choice accepts (in display order).
    keys: fn() -> Vec<&'static str>,
}

impl Setting {
    /// The setting with link key `key`.
    pub fn by_key(key: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|s| s.key == key)
    }

    /// The setting with CLI flag `flag` (without `--`).
    pub fn by_flag(flag: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|s| s.flag == flag)
    }

    /// The setting with page id `id`.
    pub fn by_id(id: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|s| s.id == id)
    }

    /// The setting's current value on `s`.
    pub fn get(&self, s: &Scenario) -> SettingValue {
        (self.read)(s)
    }

    /// Sets an already-checked value (use [`Setting::parse`] for text).
    pub fn set(&self, s: &mut Scenario, v: SettingValue) {
        (self.write)(s, v)
    }

    /// Every key a choice setting accepts; empty for other kinds.
    pub fn keys(&self) -> Vec<&'static str> {
        (self.keys)()
    }

    /// The choices the page offers for `s`: what the engine allows with the other settings.
    pub fn offered(&self, s: &Scenario) -> Vec<&'static str> {
        match self.key {
            "w" => WeightFormat::ALL
                .iter()
                .filter(|f| s.job.allows(**f))
                .map(|f| f.key())
                .collect(),
            _ if WeightPart::from_key(self.key).is_some() => std::iter::once(PART_FOLLOWS)
                .chain(
                    WeightFormat::ALL
                        .iter()
                        .filter(|f| !applies::mixes_formats(s) || s.job.allows_part(**f))
                        .map(|f| f.key()),
                )
                .collect(),
            _ => self.keys(),
        }
    }

    /// The range of a numeric setting.
    pub fn range(&self) -> Option<(u64, u64)> {
        match self.kind {
            SettingKind::Number { min, max, .. } => Some((min, max)),
            _ => None,
        }
    }

    /// Reads a value written as in a link or on the command line.
    pub fn parse(&self, text: &str) -> Result<SettingValue, Refusal> {
        match self.kind {
            SettingKind::Number { min, max, .. } => match text.parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(SettingValue::Number(n)),
                _ => Err(Refusal::OutOfRange { min, max }),
            },
            SettingKind::Choice => self
                .keys()
                .into_iter()
                .find(|k| k.eq_ignore_ascii_case(text))
                .map(SettingValue::Choice)
                .ok_or(Refusal::NotAChoice),
            SettingKind::Switch => match text {
                "1" => Ok(SettingValue::On(true)),
                "0" => Ok(SettingValue::On(false)),
                _ => Err(Refusal::NotASwitch),
            },
            SettingKind::Targets => LoraTargets::parse(text)
                .map(SettingValue::Targets)
                .map_err(|_| Refusal::NotTargets),
            SettingKind::Shares => TensorShares::parse(text)
                .map(SettingValue::Shares)
                .ok_or(Refusal::NotShares),
        }
    }

    /// Parses `text` and sets it on `s`.
    pub fn apply(&self, s: &mut Scenario, text: &str) -> Result<(), Refusal> {
        let v = self.parse(text)?;
        self.set(s, v);
        Ok(())
    }

    /// The value as a link or the CLI writes it.
    pub fn text(&self, s: &Scenario) -> String {
        match self.get(s) {
            SettingValue::Number(n) => n.to_string(),
            SettingValue::Choice(k) => k.to_string(),
            SettingValue::On(on) => u8::from(on).to_string(),
            SettingValue::Targets(t) => t.key(),
            SettingValue::Shares(t) => t.key(),
        }
    }
}
