//! `leaper graph FILE`: the Hamiltonian cycles (`--open`: paths; `--tours both`) of the graph in
//! FILE (`-` for stdin; an edge list, graph6, sparse6 or DIMACS, recognised or given with
//! `--from`). The graph is read once, when the job is made, and `job.toml` records it whole
//! (its vertices, edges and the order chosen), so that a resume or a worker on another machine
//! counts the same graph without the file.

use std::io::Write;
use std::sync::Arc;

use clap::{Args, FromArgMatches};
use serde::{Deserialize, Serialize};

use super::input::{Format, Graph, GraphInput, MAX_GRAPH_BYTES};
use crate::engine::jobdir::JobKind;
use crate::engine::problem::{
    table, typed, write_json_line, write_line, EngineOption, Job, OutputFormat, Params, Printing, Problem, Requested,
    Task,
};
use crate::error::{Error, Result};
use crate::hamiltonian::graph_reasons::why_none;
use crate::hamiltonian::transfer::{self, KindArgs, SlotTour, TourKind};
use crate::hamiltonian::vertex_order::{self as order, VertexOrder};
use crate::input::{read_text, Source};

/// The most bytes an order file (`--order`) may hold: as many as a graph file, whose vertices it
/// names once each.
pub const MAX_ORDER_BYTES: u64 = MAX_GRAPH_BYTES;

/// Any graph, as the registry names it.
pub struct GraphProblem;

/// The arguments of `leaper graph`.
#[derive(Debug, Args)]
struct GraphArgs {
    /// The graph: edges, graph6, sparse6 or DIMACS; `-` reads stdin.
    ///
    /// The graph: an edge list (`u v` per line, `#` comments, any vertex names), graph6 or
    /// sparse6 (as nauty writes them), or DIMACS (`p edge N M`, `e u v`); `-` reads stdin.
    file: String,

    /// The file's format, when it is not recognised.
    ///
    /// The file's format, when it is not to be recognised: edges, graph6, sparse6 or dimacs.
    #[arg(long, value_name = "FORMAT")]
    from: Option<Format>,

    /// Process the vertices in this order (their names).
    ///
    /// Process the vertices in this order (their names, separated by spaces or lines) rather
    /// than the narrowest the heuristics find.
    #[arg(long, value_name = "FILE")]
    order: Option<String>,

    /// Print the vertex order (for --order FILE); count nothing.
    ///
    /// Print the vertex order the count would take, by the vertices' names on one line (what
    /// --order FILE reads back), and count nothing.
    #[arg(long, hide_short_help = true)]
    print_order: bool,

    #[command(flatten)]
    kind: KindArgs,
}

/// What a graph job counts, as `job.toml` records it: the whole graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphParams {
    /// The file the graph came from, as the user named it (`stdin` for `-`).
    pub source: String,
    /// The vertices' names, numbered from 0 in the file's order.
    pub vertices: Vec<String>,
    /// The edges, as pairs of vertex numbers.
    pub edges: Vec<(usize, usize)>,
    /// The order the vertices are processed in, and how it was found.
    pub order: Vec<usize>,
    pub order_found: String,
    #[serde(default)]
    pub tours: TourKind,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub directed: bool,
    /// What reading the file noticed (edges merged, loops dropped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The line of a stream (a graph6 file of several graphs) the graph was on: its counts are
    /// printed on one line, in the stream's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

impl GraphParams {
    /// The parameters that count `tours` of `graph` (read from `source`, with the reader's
    /// `notes`), in `order` (the vertices and where the order came from) or else the narrowest
    /// order the heuristics find. A graph no order fits is refused here, before any job
    /// directory is made.
    pub fn new(
        source: String,
        graph: &Graph,
        notes: Vec<String>,
        tours: TourKind,
        directed: bool,
        order: Option<(Vec<usize>, String)>,
    ) -> Result<GraphParams> {
        let adjacency: Vec<Vec<usize>> = (0..graph.vertices()).map(|v| graph.neighbours(v).to_vec()).collect();
        let order = match order {
            Some((vertices, how)) => VertexOrder::measured(&adjacency, vertices, how, tours),
            None => order::choose(&adjacency, tours),
        };
        order.check_fits(&format!("graph {source}")).map_err(|error| match error {
            Error::InvalidRequest(why) => {
                Error::InvalidRequest(format!("{why}; --order FILE takes a narrower order, if you know one"))
            }
            other => other,
        })?;
        let line = None;
        Ok(GraphParams {
            source,
            vertices: (0..graph.vertices()).map(|v| graph.name(v).to_string()).collect(),
            edges: graph.edges().collect(),
            order: order.vertices,
            order_found: order.how,
            tours,
            directed,
            notes,
            line,
        })
    }

    /// The vertex order by the vertices' names, separated by spaces: what `--order` reads.
    pub fn order_by_name(&self) -> String {
        order::by_name(&self.order, &self.vertices, self.order.len())
    }
}

/// A graph count, its parameters read: the graph's neighbours and the measured order.
pub struct GraphTask {
    params: GraphParams,
    adjacency: Vec<Vec<usize>>,
    order: VertexOrder,
}

impl GraphTask {
    fn read(params: &Params) -> Result<GraphTask> {
        let params: GraphParams = typed("graph", params)?;
        let n = params.vertices.len();
        let invalid = |what: String| Error::InvalidRequest(format!("the graph job's parameters are damaged: {what}"));
        let mut adjacency = vec![Vec::new(); n];
        for &(u, v) in &params.edges {
            if u >= n || v >= n || u == v {
                return Err(invalid(format!("edge {u}-{v} of {n} vertices")));
            }
            adjacency[u].push(v);
            adjacency[v].push(u);
        }
        let mut sorted = params.order.clone();
        sorted.sort_unstable();
        if n == 0 || sorted != (0..n).collect::<Vec<_>>() {
            return Err(invalid(format!("the order is not one of its {n} vertices")));
        }
        let order = VertexOrder::measured(&adjacency, params.order.clone(), params.order_found.clone(), params.tours);
        Ok(GraphTask { params, adjacency, order })
    }

    /// The count as printed: doubled once per direction (but the one-vertex path).
    fn shown(&self, tour: SlotTour, count: &str) -> Result<String> {
        if !self.params.directed || (tour.open && self.params.vertices.len() == 1) {
            return Ok(count.to_string());
        }
        transfer::once_per_direction(count)
    }
}

/// One result line: `{"problem":"graph","graph":"cube4.g6","vertices":16,"edges":32,"tours":"closed","count":"1344"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
struct GraphLine<'a> {
    problem: &'static str,
    graph: &'a str,
    vertices: usize,
    edges: usize,
    tours: &'static str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    directed: bool,
    count: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    verified: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// The line of a stream the graph was on.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
}

impl Problem for GraphProblem {
    fn name(&self) -> &'static str {
        "graph"
    }

    fn kinds(&self, _path: &str) -> &'static [JobKind] {
        &[JobKind::Sweep]
    }

    fn examples(&self, path: &str) -> Option<&'static str> {
        (path == "graph").then_some(
            "  leaper graph cube.edges --open          # 72 paths of the 3-cube (`u v` lines)
  geng 5 | leaper graph -                 # nauty's graphs: a count a line
  leaper graph petersen.g6 --tours both   # graph6 (nauty): closed 0, open 120
  printf 'C~\\n' | leaper graph -          # 3 cycles of K4, graph6 on stdin
  leaper graph cube.edges --print-order   # the vertex order, for --order FILE",
        )
    }

    /// A graph's count is one number: no b-file ([`Task::check_bfile`] says so if asked).
    fn engine_option(&self, _command: &str, option: &str) -> Option<EngineOption> {
        matches!(option, "bfile" | "stride" | "offset").then_some(EngineOption::Unused)
    }

    fn commands(&self) -> Vec<clap::Command> {
        vec![GraphArgs::augment_args(clap::Command::new("graph"))
            .about("Hamiltonian cycles or paths of any graph (edges, graph6, DIMACS)")
            .long_about(
                "Hamiltonian cycles (or --open paths) of any graph, from an edge list, graph6, sparse6 or DIMACS \
                 file. A graph6 or sparse6 file of several graphs, one a line (nauty's `geng 5`), is a stream: \
                 each graph is counted and printed on a line of its own, in the file's order: its count (with \
                 --tours both, the closed count and the open count); small graphs are counted in parallel.",
            )]
    }

    /// One graph's parameters; a stream of graphs is refused here (see [`Problem::request`]).
    fn params(&self, command: &str, matches: &clap::ArgMatches) -> Result<Params> {
        match self.request(command, matches)? {
            Requested::One(params) => Ok(params),
            _ => Err(Error::InvalidRequest(
                "a graph6 or sparse6 stream is several counts, not one: count it with `leaper graph`".into(),
            )),
        }
    }

    /// Reads the graph and chooses its order, now: a graph too wide for the key is refused
    /// before any job directory is made. A graph6 or sparse6 file of several graphs is a stream
    /// of counts, one a graph, each read as it is counted; `--print-order` answers with the
    /// order, counting nothing.
    fn request(&self, _command: &str, matches: &clap::ArgMatches) -> Result<Requested> {
        let args = GraphArgs::from_arg_matches(matches).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        let tours = args.kind.tours();
        let directed = args.kind.directed;
        let text = match GraphInput::open(&Source::new(&args.file), args.from)? {
            GraphInput::One(text) => text,
            GraphInput::Stream(stream) => {
                if let Some(option) = [(args.order.is_some(), "--order"), (args.print_order, "--print-order")]
                    .into_iter()
                    .find_map(|(given, option)| given.then_some(option))
                {
                    return Err(Error::InvalidRequest(format!(
                        "{}: {option} is for a file of one graph, and this graph6 or sparse6 stream holds several,                          one a line",
                        stream.source()
                    )));
                }
                let source = stream.source().to_string();
                return Ok(Requested::Stream(Box::new(stream.map(move |graph| {
                    let graph = graph?;
                    let named = format!("{source} line {}", graph.line);
                    let mut params = GraphParams::new(named, &graph.graph, graph.notes, tours, directed, None)?;
                    params.line = Some(graph.line);
                    table(&params)
                }))));
            }
        };
        let source = Source::new(&args.file).name().display().to_string();
        let (graph, notes) = Graph::read(&text, args.from, &source)?;
        let order = match &args.order {
            Some(path) => {
                if path == "-" && args.file == "-" {
                    return Err(Error::InvalidRequest(
                        "the graph and --order are both read from stdin (-), which holds one file: give the order \
                         as a file"
                            .into(),
                    ));
                }
                let (order_source, text) = read_source(path, MAX_ORDER_BYTES, "vertex order file")?;
                let names: Vec<String> = (0..graph.vertices()).map(|v| graph.name(v).to_string()).collect();
                Some((order::given(&names, &text, &order_source)?, format!("from {order_source}")))
            }
            None => None,
        };
        let params = GraphParams::new(source, &graph, notes, tours, directed, order)?;
        if args.print_order {
            return Ok(Requested::Answer(format!("{}\n", params.order_by_name())));
        }
        Ok(Requested::One(table(&params)?))
    }

    fn task(&self, params: &Params) -> Result<Arc<dyn Task>> {
        Ok(Arc::new(GraphTask::read(params)?))
    }
}

/// The text of `path`, or of stdin for `-`, with the name messages give it; refused past
/// `limit` bytes, after reading at most one byte more.
fn read_source(path: &str, limit: u64, what: &str) -> Result<(String, String)> {
    let source = Source::new(path);
    let text = read_text(&source, limit, what)?;
    Ok((source.name().display().to_string(), text))
}

impl Task for GraphTask {
    fn kind(&self) -> JobKind {
        JobKind::Sweep
    }

    fn command_line(&self) -> String {
        let kind = match self.params.tours {
            TourKind::Closed => "",
            TourKind::Open => " --open",
            TourKind::Both => " --tours both",
        };
        format!("graph {}{kind}{}", self.params.source, if self.params.directed { " --directed" } else { "" })
    }

    /// `graph-` and the file's name without its folder and extension (`graph-petersen`).
    fn id_stem(&self) -> String {
        let stem = std::path::Path::new(&self.params.source).file_stem().and_then(|s| s.to_str()).unwrap_or("graph");
        let stem: String =
            stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
        let kind = if self.params.tours == TourKind::Closed {
            String::new()
        } else {
            format!("-{}", self.params.tours.name())
        };
        format!("graph-{stem}{kind}")
    }

    fn job(&self) -> Result<Job> {
        let name = format!(
            "{} ({} vertices, {} edges)",
            self.params.source,
            self.params.vertices.len(),
            self.params.edges.len()
        );
        Ok(Job::Sweep(transfer::graph_tours(name, &self.order.edges(&self.adjacency), self.params.tours)?))
    }

    fn slot_label(&self, slot: usize) -> Result<String> {
        let tour = SlotTour::of(slot, self.params.tours);
        Ok(format!("{} {}", self.params.source, tour.kind_name()))
    }

    fn check_bfile(&self) -> Result<()> {
        Err(Error::InvalidRequest(
            "a graph's count is one number, not a sequence: --bfile is for sweeps of boards".into(),
        ))
    }

    fn bfile_rows(&self, _counts: &[(usize, String)]) -> Result<Vec<(usize, String)>> {
        self.check_bfile().map(|()| Vec::new())
    }

    fn notes(&self) -> Vec<String> {
        let order = &self.order;
        let mut notes = self.params.notes.clone();
        notes.push(
            format!(
                "graph {}: {} vertices, {} edges; {}",
                self.params.source,
                self.params.vertices.len(),
                self.params.edges.len(),
                order.described(&self.params.vertices)
            ) + if order.vertices.len() > order::ORDER_SHOWN { " (--print-order prints it whole)" } else { "" },
        );
        notes
    }

    fn reasons(&self) -> Vec<(usize, String)> {
        self.params
            .tours
            .opens()
            .iter()
            .filter_map(|&open| {
                let why = why_none(&self.adjacency, &self.params.vertices, open)?;
                let what = if open { "Hamiltonian path" } else { "Hamiltonian cycle" };
                Some((
                    SlotTour { open, rows: 1 }.slot(self.params.tours),
                    format!("graph {}: no {what}: {why}", self.params.source),
                ))
            })
            .collect()
    }

    fn print(&self, counts: &[(usize, String)], printing: Printing, out: &mut dyn Write) -> Result<()> {
        let mut reasons: std::collections::HashMap<usize, String> = self.reasons().into_iter().collect();
        let mut stream_line = Vec::new();
        for (slot, count) in counts {
            let tour = SlotTour::of(*slot, self.params.tours);
            let reason = reasons.remove(slot);
            if let Some(reason) = reason.as_ref().filter(|_| count != "0") {
                return Err(Error::Bug(format!("{reason}; yet {count} were counted")));
            }
            let line = GraphLine {
                problem: "graph",
                graph: &self.params.source,
                vertices: self.params.vertices.len(),
                edges: self.params.edges.len(),
                tours: tour.kind_name(),
                directed: self.params.directed,
                count: self.shown(tour, count)?,
                verified: printing.verified,
                reason,
                line: self.params.line,
            };
            match printing.format {
                OutputFormat::Json => write_json_line(out, &line)?,
                // A stream's graph: its counts on one line, closed then open.
                OutputFormat::Text if self.params.line.is_some() => stream_line.push(line.count),
                OutputFormat::Text if self.params.tours == TourKind::Both => {
                    write_line(out, format_args!("{} {}", line.tours, line.count))?
                }
                OutputFormat::Text => write_line(out, format_args!("{}", line.count))?,
            }
        }
        if !stream_line.is_empty() {
            write_line(out, format_args!("{}", stream_line.join(" ")))?;
        }
        Ok(())
    }
}
