fn main() {
    std::process::exit(rarity_cli_main());
}

fn rarity_cli_main() -> i32 {
    0
}
