//! What a finished count leaves: `--verify` and the reasons of zero counts said in its JSON lines.

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

#[test]
fn zero_counts_carry_their_reason_in_json() {
    let lines = run(&["camel", "5x12", "--sweep", "--format", "json"]);
    assert_eq!(lines.lines().count(), 12);
    assert!(lines.lines().all(|line| line.contains("\"count\":\"0\",\"reason\":\"camel 5x")), "{lines}");
    assert_eq!(
        lines.lines().last().unwrap(),
        "{\"problem\":\"camel\",\"board\":\"5x12\",\"tours\":\"closed\",\"count\":\"0\",\"reason\":\"camel 5x12: no \
         closed tour: every camel move keeps the square's colour, so the board's graph is disconnected (2 \
         components)\"}"
    );
    // The text output stays the table of counts.
    assert_eq!(run(&["camel", "5x3", "--sweep"]), "5x1 0\n5x2 0\n5x3 0\n");
}
