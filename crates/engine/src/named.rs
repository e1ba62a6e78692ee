//! Enums that know their own names: a short key for links and the CLI, and an English label.

/// Declares a fieldless enum with `ALL`, `key()`, `label()` and `from_key()`.
macro_rules! named_enum {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident => ($key:literal, $label:literal)),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            /// Every variant, in display order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The short key used in links and on the command line.
            pub const fn key(self) -> &'static str {
                match self { $($name::$variant => $key),+ }
            }

            /// The English label shown to users.
            pub fn label(self) -> &'static str {
                match self { $($name::$variant => $label),+ }
            }

            /// The variant whose key is `key` (case-insensitive).
            pub fn from_key(key: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|v| v.key().eq_ignore_ascii_case(key))
            }

            /// Position in `ALL`, for stepped sliders.
            pub fn index(self) -> usize {
                Self::ALL.iter().position(|v| *v == self).unwrap_or(0)
            }
        }

        impl crate::named::Named for $name {
            fn all() -> &'static [$name] {
                Self::ALL
            }
            fn key(self) -> &'static str {
                $name::key(self)
            }
            fn from_key(key: &str) -> Option<$name> {
                $name::from_key(key)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.label())
            }
        }
    };
}

pub(crate) use named_enum;

/// What every [`named_enum!`] knows, for code generic over them (the settings registry).
pub(crate) trait Named: Copy + 'static {
    fn all() -> &'static [Self];
    fn key(self) -> &'static str;
    fn from_key(key: &str) -> Option<Self>;
}
