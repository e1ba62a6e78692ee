//! How the registry reads and writes a setting's field: its kind, its value and, for choices,
//! its keys, by the field's type. A whole-number field gives its range in its declaration.

use super::{SettingKind, SettingValue};
use crate::gguf::GgmlType;
use crate::gpus::Gpu;
use crate::llamacpp::{TensorShares, CACHE_TYPES};
use crate::named::Named;
use crate::scenario::LoraTargets;

/// A type a setting's field holds.
pub(super) trait Field: Sized {
    /// The input the setting takes.
    const KIND: SettingKind;
    /// The field as the registry's value.
    fn value(&self) -> SettingValue;
    /// The field a value sets; `None` for a value of another kind or an unknown key.
    fn from_value(v: SettingValue) -> Option<Self>;
    /// Every key a choice accepts, in display order; empty for other kinds.
    fn keys() -> Vec<&'static str> {
        Vec::new()
    }
}

/// A named enum is a choice of its keys.
impl<T: Named> Field for T {
    const KIND: SettingKind = SettingKind::Choice;
    fn value(&self) -> SettingValue {
        SettingValue::Choice(self.key())
    }
    fn from_value(v: SettingValue) -> Option<T> {
        match v {
            SettingValue::Choice(k) => T::from_key(k),
            _ => None,
        }
    }
    fn keys() -> Vec<&'static str> {
        T::all().iter().map(|x| x.key()).collect()
    }
}

/// On or off.
impl Field for bool {
    const KIND: SettingKind = SettingKind::Switch;
    fn value(&self) -> SettingValue {
        SettingValue::On(*self)
    }
    fn from_value(v: SettingValue) -> Option<bool> {
        match v {
            SettingValue::On(on) => Some(on),
            _ => None,
        }
    }
}

impl Field for LoraTargets {
    const KIND: SettingKind = SettingKind::Targets;
    fn value(&self) -> SettingValue {
        SettingValue::Targets(*self)
    }
    fn from_value(v: SettingValue) -> Option<LoraTargets> {
        match v {
            SettingValue::Targets(t) => Some(t),
            _ => None,
        }
    }
}

impl Field for TensorShares {
    const KIND: SettingKind = SettingKind::Shares;
    fn value(&self) -> SettingValue {
        SettingValue::Shares(*self)
    }
    fn from_value(v: SettingValue) -> Option<TensorShares> {
        match v {
            SettingValue::Shares(t) => Some(t),
            _ => None,
        }
    }
}

/// The key of "every GPU alike" among the last GPU's choices.
const SAME_GPU: &str = "same";

/// The last GPU of a mixed box: `same` (none of its own) or a GPU.
impl Field for Option<Gpu> {
    const KIND: SettingKind = SettingKind::Choice;
    fn value(&self) -> SettingValue {
        SettingValue::Choice(self.map_or(SAME_GPU, |g| g.key()))
    }
    fn from_value(v: SettingValue) -> Option<Option<Gpu>> {
        match v {
            SettingValue::Choice(k) => Some(Gpu::from_key(k)),
            _ => None,
        }
    }
    fn keys() -> Vec<&'static str> {
        std::iter::once(SAME_GPU)
            .chain(Gpu::ALL.iter().map(|g| g.key()))
            .collect()
    }
}

/// A llama.cpp cache type (`--cache-type-k/-v`): the types llama.cpp's cache takes, by name.
impl Field for GgmlType {
    const KIND: SettingKind = SettingKind::Choice;
    fn value(&self) -> SettingValue {
        SettingValue::Choice(self.name())
    }
    fn from_value(v: SettingValue) -> Option<GgmlType> {
        match v {
            SettingValue::Choice(k) => CACHE_TYPES.into_iter().find(|t| t.name() == k),
            _ => None,
        }
    }
    fn keys() -> Vec<&'static str> {
        CACHE_TYPES.iter().map(|t| t.name()).collect()
    }
}
