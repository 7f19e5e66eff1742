//! The `rarity` binary: see `rarity --help`.

mod cli;

fn main() {
    std::process::exit(cli::main());
}
