//! The `rarity` binary: see `rarity --help`.

#![warn(clippy::undocumented_unsafe_blocks)]

mod cli;

fn main() {
    std::process::exit(cli::main());
}
