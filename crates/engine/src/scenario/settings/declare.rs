//! The macro that turns the settings' declaration (`list.rs`) into the [`Scenario`] struct, its
//! `Default` and [`SETTINGS`]. It is this crate's own `macro_rules!`.
//!
//! Each entry is a field with its type and default, then the settings that read and write it:
//!
//! ```text
//! /// doc of the field
//! field: Type = default
//!     => ("link key", "cli-flag", "page-id", "--help hint") at Panel(rank, Look) if applies_fn, how(args);
//! ```
//!
//! `at Panel(rank, Look)` is the setting's [`Place`] on the page: its panel, its rank there, and
//! its look (`Plain` when left out).
//!
//! `how` is left out when the field's type says it all ([`Field`]: a named enum is a choice, a
//! `bool` a switch, ...), or is one of:
//! - `number(min, max, slider lo, hi, log, pow2)`: a whole number in `min..=max` (a `u64` field),
//!   its slider over `lo..=hi`, on a log scale when `log`, by powers of two when `pow2`;
//! - `keys(fn)`: a `&'static str` field that holds one of `fn()`'s keys;
//! - `then(fn)`: a setter `fn(&mut Scenario, value)` called instead of assigning the field;
//! - `part(WeightPart::X)`: one part's format in a [`PartFormats`](crate::weight_parts::PartFormats).
//!
//! A field with no setting (the model, a GGUF file) has only its type and default.
//!
//! [`Scenario`]: super::Scenario
//! [`SETTINGS`]: super::SETTINGS
//! [`Field`]: super::field::Field
//! [`Place`]: super::Place

macro_rules! declare_settings {
    (
        $(#[$smeta:meta])*
        pub struct $name:ident;
        $(
            $(#[$fmeta:meta])*
            $field:ident : $ty:ty = $default:expr
            $(
                => ($key:literal, $flag:literal, $id:literal, $hint:literal)
                at $panel:ident ($rank:literal $(, $look:ident)?)
                if $applies:ident $(, $how:ident $args:tt)?
            )*
            ;
        )*
    ) => {
        $(#[$smeta])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> $name {
                $name { $( $field: $default, )* }
            }
        }

        /// Every setting of a scenario, in the order links write them.
        pub static SETTINGS: &[Setting] = &[
            $( $(
                setting!($field: $ty; $key, $flag, $id, $hint, $applies,
                    Place { panel: Panel::$panel, rank: $rank, look: look!($($look)?) };
                    $($how $args)?),
            )* )*
        ];
    };
}

/// A setting's look on the page: `Plain` unless its declaration names one.
macro_rules! look {
    () => {
        Look::Plain
    };
    ($look:ident) => {
        Look::$look
    };
}

/// One descriptor of [`declare_settings!`].
macro_rules! setting {
    (@desc $key:literal, $flag:literal, $id:literal, $hint:literal, $applies:ident, $place:expr, $kind:expr, $read:expr, $write:expr, $keys:expr) => {
        Setting {
            key: $key,
            flag: $flag,
            id: $id,
            value_hint: $hint,
            kind: $kind,
            applies: $applies,
            place: $place,
            read: $read,
            write: $write,
            keys: $keys,
        }
    };
    ($field:ident : $ty:ty; $key:literal, $flag:literal, $id:literal, $hint:literal, $applies:ident, $place:expr;) => {
        setting!(@desc $key, $flag, $id, $hint, $applies, $place,
            <$ty as Field>::KIND,
            |s| Field::value(&s.$field),
            |s, v| {
                if let Some(x) = <$ty as Field>::from_value(v) {
                    s.$field = x;
                }
            },
            <$ty as Field>::keys)
    };
    ($field:ident : $ty:ty; $key:literal, $flag:literal, $id:literal, $hint:literal, $applies:ident, $place:expr;
        number ($min:expr, $max:expr, slider $smin:expr, $smax:expr, $log:expr, $pow2:expr)) => {
        setting!(@desc $key, $flag, $id, $hint, $applies, $place,
            SettingKind::Number { min: $min, max: $max, slider: ($smin, $smax), log: $log, pow2: $pow2 },
            |s| SettingValue::Number(s.$field),
            |s, v| {
                if let SettingValue::Number(n) = v {
                    s.$field = n;
                }
            },
            Vec::new)
    };
    ($field:ident : $ty:ty; $key:literal, $flag:literal, $id:literal, $hint:literal, $applies:ident, $place:expr;
        keys ($keys:expr)) => {
        setting!(@desc $key, $flag, $id, $hint, $applies, $place,
            SettingKind::Choice,
            |s| SettingValue::Choice(s.$field),
            |s, v| {
                if let SettingValue::Choice(k) = v {
                    if let Some(k) = $keys().into_iter().find(|x| *x == k) {
                        s.$field = k;
                    }
                }
            },
            $keys)
    };
    ($field:ident : $ty:ty; $key:literal, $flag:literal, $id:literal, $hint:literal, $applies:ident, $place:expr;
        then ($then:expr)) => {
        setting!(@desc $key, $flag, $id, $hint, $applies, $place,
            <$ty as Field>::KIND,
            |s| Field::value(&s.$field),
            |s, v| {
                if let Some(x) = <$ty as Field>::from_value(v) {
                    ($then)(s, x);
                }
            },
            <$ty as Field>::keys)
    };
    ($field:ident : $ty:ty; $key:literal, $flag:literal, $id:literal, $hint:literal, $applies:ident, $place:expr;
        part ($part:expr)) => {
        setting!(@desc $key, $flag, $id, $hint, $applies, $place,
            SettingKind::Choice,
            |s| SettingValue::Choice(s.$field.get($part).map_or(PART_FOLLOWS, |f| f.key())),
            |s, v| {
                if let SettingValue::Choice(k) = v {
                    s.$field.set($part, WeightFormat::from_key(k));
                }
            },
            part_format_keys)
    };
}

pub(super) use declare_settings;
pub(super) use look;
pub(super) use setting;
