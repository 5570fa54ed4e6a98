//! What a finished count leaves: `--verify` said in its JSON lines.

mod common;

use common::run;

#[test]
fn verify_is_reported_in_json_lines_only_when_asked() {
    let verified = run(&["knight", "6x6", "--verify", "--format", "json"]);
    assert_eq!(
        verified,
        "{\"problem\":\"knight\",\"board\":\"6x6\",\"tours\":\"closed\",\"count\":\"9862\",\"verified\":true}\n"
    );
    let unverified = run(&["knight", "6x6", "--format", "json"]);
    assert_eq!(unverified, "{\"problem\":\"knight\",\"board\":\"6x6\",\"tours\":\"closed\",\"count\":\"9862\"}\n");
    // Text output is the count alone either way.
    assert_eq!(run(&["knight", "6x6", "--verify"]), "9862\n");
    let quarter = run(&["quarter", "6", "--verify", "--format", "json"]);
    assert!(quarter.trim_end().ends_with(",\"verified\":true}"), "{quarter}");
}
