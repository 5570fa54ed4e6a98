//! Conversions between wire types and engine types, for both sides of the protocol (the
//! coordinator uses this module too): state batches, layer files, the job a worker is given.

use std::path::Path;

use leaper_core::store::checkpoint::{FileRecord, LayerRecord};
use leaper_core::store::{BucketInfo, DurableLayer, LayerFile};
use leaper_proto::v1;
use tonic::Status;

/// Most bytes of uncompressed records in one batch; a message stays well under the size limit.
pub const BATCH_BYTES: usize = 1 << 20;
/// Largest message either side accepts.
pub const MAX_MESSAGE_BYTES: usize = 8 << 20;

/// Encodes per-bucket record runs (key, then residues, per record) into one batch.
pub fn encode_batch(
    job_id: &str,
    generation: u64,
    step: u64,
    sections: &[(usize, Vec<u64>)],
    stride: usize,
) -> v1::StateBatch {
    let words: usize = sections.iter().map(|(_, records)| records.len()).sum();
    let mut raw = Vec::with_capacity(words * 8);
    for (_, records) in sections {
        for word in records {
            raw.extend_from_slice(&word.to_le_bytes());
        }
    }
    v1::StateBatch {
        job_id: job_id.to_string(),
        step,
        buckets: sections.iter().map(|(bucket, _)| *bucket as u32).collect(),
        counts: sections.iter().map(|(_, records)| (records.len() / stride) as u32).collect(),
        records: zstd::bulk::compress(&raw, 1).expect("compressing into memory cannot fail"),
        generation,
    }
}

/// Decodes a batch into `(bucket, records)` runs, checking that the counts add up.
pub fn decode_batch(batch: &v1::StateBatch, stride: usize) -> Result<Vec<(usize, Vec<u64>)>, Status> {
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
    let mut words = raw.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
    Ok(batch
        .buckets
        .iter()
        .zip(&batch.counts)
        .map(|(&bucket, &count)| (bucket as usize, words.by_ref().take(count as usize * stride).collect()))
        .collect())
}

/// A layer's files for the wire, relative to `data_dir`.
pub fn files_to_wire(data_dir: &Path, layer: &DurableLayer) -> Result<Vec<v1::LayerFile>, Status> {
    layer
        .files
        .iter()
        .map(|file| {
            let relative =
                file.path.strip_prefix(data_dir).ok().and_then(|p| p.to_str()).ok_or_else(|| {
                    Status::internal(format!("{} lies outside the data directory", file.path.display()))
                })?;
            Ok(v1::LayerFile {
                bucket: file.bucket as u32,
                file: relative.to_string(),
                states: file.info.states,
                bytes: file.info.bytes,
                crc32: file.info.crc32,
            })
        })
        .collect()
}

/// The layer a wire message names, with paths under `data_dir`. Names that climb out of the
/// data directory are refused.
pub fn layer_from_wire(data_dir: &Path, number: u64, files: &[v1::LayerFile]) -> Result<DurableLayer, Status> {
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
            Ok(LayerFile {
                bucket: file.bucket as usize,
                path: data_dir.join(relative),
                info: BucketInfo { states: file.states, bytes: file.bytes, crc32: file.crc32 },
            })
        })
        .collect::<Result<Vec<_>, Status>>()?;
    Ok(DurableLayer { number, files })
}

/// A checkpoint's record of a worker's bucket file, for the wire.
pub fn record_to_wire(file: &FileRecord) -> v1::LayerFile {
    v1::LayerFile {
        bucket: file.bucket as u32,
        file: file.file.clone(),
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
            info: BucketInfo { states: f.states, bytes: f.bytes, crc32: f.crc32 },
        })
        .collect();
    LayerRecord { number: reply.layer_number, states: reply.states, bytes: reply.bytes, files }
}

/// Engine errors as gRPC statuses: bad requests are the caller's, the rest the worker's.
pub fn status(error: leaper_core::Error) -> Status {
    match error {
        leaper_core::Error::InvalidBoard { .. }
        | leaper_core::Error::InvalidMoves { .. }
        | leaper_core::Error::FrontierTooWide { .. }
        | leaper_core::Error::InvalidOption(_) => Status::invalid_argument(error.to_string()),
        _ => Status::internal(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_round_trip_and_refuse_bad_counts() {
        let sections = vec![(3, vec![10, 1, 2, 11, 3, 4]), (7, vec![12, 5, 6])];
        let batch = encode_batch("job", 1, 4, &sections, 3);
        assert_eq!(decode_batch(&batch, 3).unwrap(), sections);
        let mut bad = batch.clone();
        bad.counts[0] = 3;
        assert!(decode_batch(&bad, 3).is_err());
    }
}
