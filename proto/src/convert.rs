//! Conversions between wire types and engine types, for both sides of the protocol, in one
//! place: state batches, layer files, and errors (an engine error becomes a gRPC status that
//! carries its disposition, and comes back as the same kind of error on the other side, so
//! that whether a call is retried or refused follows from what went wrong).

use std::path::Path;

use leaper_core::engine::jobdir::manifest::{FileRecord, LayerRecord};
use leaper_core::engine::store::{BucketInfo, BucketSection, DurableLayer};
use leaper_core::engine::RecordLayout;
use leaper_core::{Disposition, Error};
use tonic::{Code, Status};

use crate::v1;

/// Most bytes of uncompressed records in one batch; a message stays well under the size limit.
pub const BATCH_BYTES: usize = 1 << 20;
/// zstd's level for state batches: one of its fast levels (negative), since every record of a
/// step passes through it once on the sender and once on the receiver.
pub const BATCH_LEVEL: i32 = -3;
/// Largest message either side accepts.
pub const MAX_MESSAGE_BYTES: usize = 8 << 20;

/// Records for one bucket in a batch (key words, then residues, per record), and whether they
/// were merged before they were sent (see `StateStore::emit_merged`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchSection {
    pub bucket: usize,
    pub records: Vec<u64>,
    pub merged: bool,
}

/// Encodes per-bucket record runs into one batch.
pub fn encode_batch(
    job_id: &str,
    generation: u64,
    layers_merged: u64,
    sections: &[BatchSection],
    layout: RecordLayout,
) -> v1::StateBatch {
    let stride = layout.stride();
    let words: usize = sections.iter().map(|section| section.records.len()).sum();
    let mut raw = Vec::with_capacity(words * 8);
    for section in sections {
        for word in &section.records {
            raw.extend_from_slice(&word.to_le_bytes());
        }
    }
    v1::StateBatch {
        job_id: job_id.to_string(),
        layers_merged,
        buckets: sections.iter().map(|section| section.bucket as u32).collect(),
        counts: sections.iter().map(|section| (section.records.len() / stride) as u32).collect(),
        records: zstd::bulk::compress(&raw, BATCH_LEVEL).expect("compressing into memory cannot fail"),
        generation,
        merged: sections.iter().map(|section| section.merged).collect(),
    }
}

/// Decodes a batch into its sections, checking that the counts add up.
pub fn decode_batch(batch: &v1::StateBatch, layout: RecordLayout) -> Result<Vec<BatchSection>, Status> {
    let stride = layout.stride();
    if batch.buckets.len() != batch.counts.len() {
        return Err(Status::invalid_argument("state batch: buckets and counts differ in length"));
    }
    let records: usize = batch.counts.iter().map(|&c| c as usize).sum();
    let expected = records * stride * 8;
    if expected > MAX_MESSAGE_BYTES * 16 {
        return Err(Status::invalid_argument(format!("state batch of {expected} bytes is over the limit")));
    }
    let raw = zstd::bulk::decompress(&batch.records, expected)
        .map_err(|e| Status::invalid_argument(format!("state batch does not decompress: {e}")))?;
    if raw.len() != expected {
        return Err(Status::invalid_argument(format!(
            "state batch holds {} bytes, its counts say {expected}",
            raw.len()
        )));
    }
    if batch.merged.len() > batch.buckets.len() {
        return Err(Status::invalid_argument("state batch: more merged flags than buckets"));
    }
    let mut words = raw.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
    Ok(batch
        .buckets
        .iter()
        .zip(&batch.counts)
        .enumerate()
        .map(|(i, (&bucket, &count))| BatchSection {
            bucket: bucket as usize,
            records: words.by_ref().take(count as usize * stride).collect(),
            merged: batch.merged.get(i).copied().unwrap_or(false),
        })
        .collect())
}

/// A layer's files for the wire, relative to `data_dir`.
pub fn files_to_wire(data_dir: &Path, layer: &DurableLayer) -> Result<Vec<v1::BucketSection>, Status> {
    layer
        .files
        .iter()
        .map(|file| {
            let relative =
                file.path.strip_prefix(data_dir).ok().and_then(|p| p.to_str()).ok_or_else(|| {
                    Status::internal(format!("{} lies outside the data directory", file.path.display()))
                })?;
            Ok(v1::BucketSection {
                bucket: file.bucket as u32,
                file: relative.to_string(),
                offset: file.offset,
                states: file.info.states,
                bytes: file.info.bytes,
                crc32: file.info.crc32,
            })
        })
        .collect()
}

/// The layer a wire message names, with paths under `data_dir`. Names that climb out of the
/// data directory are refused.
pub fn layer_from_wire(data_dir: &Path, number: u64, files: &[v1::BucketSection]) -> Result<DurableLayer, Status> {
    let files = files
        .iter()
        .map(|file| {
            let relative = Path::new(&file.file);
            if relative.is_absolute() || relative.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
                return Err(Status::invalid_argument(format!(
                    "layer file {:?} is not inside the data directory",
                    file.file
                )));
            }
            Ok(BucketSection {
                bucket: file.bucket as usize,
                path: data_dir.join(relative),
                offset: file.offset,
                info: BucketInfo { states: file.states, bytes: file.bytes, crc32: file.crc32 },
            })
        })
        .collect::<Result<Vec<_>, Status>>()?;
    Ok(DurableLayer { number, files })
}

/// A checkpoint's record of a worker's bucket section, for the wire.
pub fn record_to_wire(file: &FileRecord) -> v1::BucketSection {
    v1::BucketSection {
        bucket: file.bucket as u32,
        file: file.file.clone(),
        offset: file.offset,
        states: file.info.states,
        bytes: file.info.bytes,
        crc32: file.info.crc32,
    }
}

/// The worker's part of a merged layer, as the coordinator's checkpoint records it.
pub fn layer_from_merge(reply: &v1::MergeReply) -> LayerRecord {
    let files = reply
        .files
        .iter()
        .map(|f| FileRecord {
            bucket: f.bucket as usize,
            file: f.file.clone(),
            offset: f.offset,
            info: BucketInfo { states: f.states, bytes: f.bytes, crc32: f.crc32 },
        })
        .collect();
    LayerRecord { number: reply.layer_number, states: reply.states, bytes: reply.bytes, files }
}

/// The metadata key that carries an error's disposition across the wire.
const DISPOSITION: &str = "leaper-disposition";

/// An engine error as a gRPC status: bad requests and refusals are the caller's
/// (`InvalidArgument`, `FailedPrecondition`), a peer that failed or an attempt that was
/// replaced are transient (`Unavailable`, `Aborted`), the rest the worker's (`Internal`).
pub fn to_status(error: Error) -> Status {
    let disposition = error.disposition();
    let mut status = match &error {
        Error::InvalidInput { .. } | Error::InvalidRequest(_) => Status::invalid_argument(error.to_string()),
        Error::Refused { message, .. } => Status::failed_precondition(message.clone()),
        Error::Unavailable { .. } => Status::unavailable(error.to_string()),
        Error::Aborted(_) => Status::aborted(error.to_string()),
        _ => Status::internal(error.to_string()),
    };
    let value = match disposition {
        Disposition::Retry => "retry",
        Disposition::Stop => "stop",
        Disposition::Bug => "bug",
    };
    status.metadata_mut().insert(DISPOSITION, value.parse().expect("ASCII"));
    status
}

/// The error a call to `peer` ended with. Refusals (a wrong token, another job, a format or plan
/// skew, a bad request) are not retried; a peer that failed, stopped answering or aborted is;
/// a bug stays a bug.
pub fn from_status(peer: &str, status: &Status) -> Error {
    let (peer, message) = (peer.to_string(), status.message().to_string());
    let disposition = status.metadata().get(DISPOSITION).and_then(|v| v.to_str().ok());
    match (disposition, status.code()) {
        (Some("bug"), _) => Error::Bug(format!("worker {peer}: {message}")),
        // The worker's own files (damaged, or its disk full): the operator must act first.
        (Some("stop"), _) => Error::Refused { peer, message },
        (
            _,
            Code::Unauthenticated
            | Code::PermissionDenied
            | Code::FailedPrecondition
            | Code::InvalidArgument
            | Code::OutOfRange
            | Code::Unimplemented
            | Code::AlreadyExists,
        ) => Error::Refused { peer, message },
        _ => Error::Unavailable { peer, message },
    }
}

/// Splits whole fixed-width records (`record_len` bytes each) into chunks of at most
/// [`BATCH_BYTES`] uncompressed bytes, each a zstd frame.
pub fn encode_record_chunks(
    bucket: &str,
    key_len: usize,
    payload_len: usize,
    record_len: usize,
    records: &[u8],
) -> Vec<v1::RecordChunk> {
    let per_chunk = (BATCH_BYTES / record_len.max(1)).max(1) * record_len.max(1);
    let pieces: Vec<&[u8]> = if records.is_empty() { vec![&[][..]] } else { records.chunks(per_chunk).collect() };
    pieces
        .into_iter()
        .map(|piece| v1::RecordChunk {
            format_version: crate::FORMAT_VERSION,
            bucket: bucket.to_string(),
            key_len: key_len as u32,
            payload_len: payload_len as u32,
            raw_bytes: piece.len() as u64,
            records: zstd::bulk::compress(piece, 1).expect("compressing into memory cannot fail"),
        })
        .collect()
}

/// The records of a chunk, checked against its stated size.
pub fn decode_record_chunk(chunk: &v1::RecordChunk) -> Result<Vec<u8>, Status> {
    if chunk.format_version != crate::FORMAT_VERSION {
        return Err(Status::failed_precondition(format!(
            "records of format {}, this side speaks {}: run the same leaper release everywhere",
            chunk.format_version,
            crate::FORMAT_VERSION
        )));
    }
    let expected = usize::try_from(chunk.raw_bytes).unwrap_or(usize::MAX);
    if expected > MAX_MESSAGE_BYTES * 16 {
        return Err(Status::invalid_argument(format!("a record chunk of {expected} bytes is over the limit")));
    }
    let raw = zstd::bulk::decompress(&chunk.records, expected)
        .map_err(|e| Status::invalid_argument(format!("a record chunk does not decompress: {e}")))?;
    if raw.len() != expected {
        return Err(Status::invalid_argument(format!("a record chunk holds {} bytes, it says {expected}", raw.len())));
    }
    Ok(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_round_trip_and_refuse_bad_counts() {
        let layout = RecordLayout::new(1, 2);
        let sections = vec![
            BatchSection { bucket: 3, records: vec![10, 1, 2, 11, 3, 4], merged: true },
            BatchSection { bucket: 7, records: vec![12, 5, 6], merged: false },
        ];
        let batch = encode_batch("job", 1, 4, &sections, layout);
        assert_eq!(decode_batch(&batch, layout).unwrap(), sections);
        // A batch without flags (none merged), and one with more flags than sections.
        let mut unflagged = batch.clone();
        unflagged.merged.clear();
        assert!(decode_batch(&unflagged, layout).unwrap().iter().all(|section| !section.merged));
        let mut flagged = batch.clone();
        flagged.merged.push(true);
        assert!(decode_batch(&flagged, layout).is_err());
        let mut bad = batch.clone();
        bad.counts[0] = 3;
        assert!(decode_batch(&bad, layout).is_err());
        // The same words read as 128-bit keys are whole records no more.
        assert!(decode_batch(&batch, RecordLayout::new(2, 2)).is_err());
    }

    #[test]
    fn errors_keep_their_disposition_across_the_wire() {
        let cases = [
            (Error::Refused { peer: "w".into(), message: "belongs to job a".into() }, Disposition::Stop),
            (Error::Unavailable { peer: "w2".into(), message: "the stream closed".into() }, Disposition::Retry),
            (Error::Aborted("replaced".into()), Disposition::Retry),
            (Error::InvalidRequest("bad".into()), Disposition::Stop),
            (Error::Bug("overflow".into()), Disposition::Bug),
        ];
        for (error, disposition) in cases {
            let text = error.to_string();
            let back = from_status("peer", &to_status(error));
            assert_eq!(back.disposition(), disposition, "{text} came back as {back}");
        }
        // A status from something that is not leaper (a proxy, a dropped connection).
        assert!(from_status("peer", &Status::unavailable("connection refused")).is_retryable());
        assert!(!from_status("peer", &Status::unauthenticated("wrong token")).is_retryable());
    }
}
