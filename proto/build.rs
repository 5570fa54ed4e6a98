//! Compiles `leaper.proto` with protox (pure Rust): no protoc binary is needed to build leaper.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=leaper.proto");
    let descriptors = protox::compile(["leaper.proto"], ["."])?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}
