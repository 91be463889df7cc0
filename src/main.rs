use clap::{Parser, Subcommand, ValueEnum};
use maestro::diagnostic::Counts;
use maestro::render::{self, Format, RenderOptions, Summary};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Validator, trainer and runtime for skill-based LLM agent projects.
#[derive(Parser)]
#[command(name = "maestro", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a project and print every finding at once.
    Check {
        /// The project root (default: the current folder).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = OutputFormat::Graphical)]
        format: OutputFormat,
        /// Exit with 1 on warnings too.
        #[arg(long)]
        deny_warnings: bool,
        /// When to use colours (`auto` honours NO_COLOR and non-terminals).
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Check the project and write the packaged model under `models/`.
    Train {
        /// The project root (default: the current folder).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Output folder (default: `<DIR>/models`).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Archive name instead of a timestamp (`NAME.tar.gz`).
        #[arg(long, value_name = "NAME")]
        fixed_model_name: Option<String>,
        /// Rebuild even when nothing changed since the newest archive.
        #[arg(long)]
        force: bool,
        /// Do not import the tool modules in Python.
        #[arg(long)]
        no_import_check: bool,
        /// The Python interpreter for the import probe.
        #[arg(long, default_value = "python3")]
        python: String,
        /// Print only findings and errors.
        #[arg(long, short)]
        quiet: bool,
        /// Output format of the findings.
        #[arg(long, value_enum, default_value_t = OutputFormat::Graphical)]
        format: OutputFormat,
        /// When to use colours.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Summarise a packaged model: skills, tools, gates, memory, knowledge.
    Inspect {
        /// The model archive (`models/<name>.tar.gz`).
        model: PathBuf,
        /// Print the manifest as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Talk to a packaged model in the terminal; a line typed while the bot
    /// is working interrupts it (one user message per line, each turn run
    /// to its end, when stdin is not a terminal).
    #[command(alias = "run")]
    Shell {
        /// The model archive (default: the newest in ./models).
        model: Option<PathBuf>,
        /// Print events on stderr as they happen.
        #[arg(long)]
        debug: bool,
        /// The Python interpreter for tools.
        #[arg(long, default_value = "python3")]
        python: String,
    },
    /// Run YAML conversation tests against a packaged model.
    Test {
        /// Test files or folders of `*.yml` files (default: ./tests).
        paths: Vec<PathBuf>,
        /// The model archive (default: the newest in ./models).
        #[arg(long)]
        model: Option<PathBuf>,
        /// Report format.
        #[arg(long, value_enum, default_value_t = TestFormat::Text)]
        format: TestFormat,
        /// The Python interpreter for tools.
        #[arg(long, default_value = "python3")]
        python: String,
    },
    /// Print a JSON Schema.
    Schema {
        #[arg(value_enum)]
        what: SchemaKind,
    },
    /// Print the documentation of a finding code (all codes without one).
    Explain {
        /// A finding code, e.g. `tools.undeclared_memory_write`.
        code: Option<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum TestFormat {
    Text,
    Junit,
}

#[derive(Clone, Copy, ValueEnum)]
enum SchemaKind {
    /// The packaged model's manifest.json.
    Manifest,
}

#[derive(Clone, Copy, ValueEnum)]
enum OutputFormat {
    Graphical,
    Json,
    Short,
    Github,
    Sarif,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check {
            dir,
            format,
            deny_warnings,
            color,
        } => check(dir, format, deny_warnings, color),
        Command::Train {
            dir,
            out,
            fixed_model_name,
            force,
            no_import_check,
            python,
            quiet,
            format,
            color,
        } => train(
            &dir,
            &maestro::train::TrainOptions {
                out_dir: out,
                fixed_name: fixed_model_name,
                force,
                import_check: !no_import_check,
                python,
                ..Default::default()
            },
            quiet,
            format,
            color,
        ),
        Command::Inspect { model, json } => inspect(&model, json),
        Command::Shell {
            model,
            debug,
            python,
        } => shell(model, debug, &python),
        Command::Test {
            paths,
            model,
            format,
            python,
        } => test(paths, model, format, &python),
        Command::Schema {
            what: SchemaKind::Manifest,
        } => {
            print!("{}", maestro::manifest::json_schema());
            ExitCode::SUCCESS
        }
        Command::Explain { code } => explain(code.as_deref()),
    }
}

fn use_color(color: ColorChoice, stream_is_terminal: bool) -> bool {
    match color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            stream_is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

fn render_findings(outcome: &maestro::CheckOutcome, format: OutputFormat, color: bool) -> String {
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100);
    let format = match format {
        OutputFormat::Graphical => Format::Graphical,
        OutputFormat::Json => Format::Json,
        OutputFormat::Short => Format::Short,
        OutputFormat::Github => Format::Github,
        OutputFormat::Sarif => Format::Sarif,
    };
    render::render(
        format,
        &outcome.findings,
        &outcome.model.db,
        maestro::checks::RULES,
        &Summary {
            files_checked: outcome.model.files_checked,
            elapsed: outcome.elapsed,
        },
        &RenderOptions {
            color,
            width,
            tool_version: env!("CARGO_PKG_VERSION"),
        },
    )
}

fn write_stdout(text: &str) -> bool {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    lock.write_all(text.as_bytes())
        .and_then(|_| lock.flush())
        .is_ok()
}

fn check(dir: PathBuf, format: OutputFormat, deny_warnings: bool, color: ColorChoice) -> ExitCode {
    let outcome = match maestro::check(&dir) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let color = use_color(color, std::io::stdout().is_terminal());
    if !write_stdout(&render_findings(&outcome, format, color)) {
        return ExitCode::from(2);
    }
    let counts = Counts::of(&outcome.findings);
    if counts.errors > 0 || (deny_warnings && counts.warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn train(
    dir: &std::path::Path,
    opts: &maestro::train::TrainOptions,
    quiet: bool,
    format: OutputFormat,
    color: ColorChoice,
) -> ExitCode {
    use maestro::train::Status;
    let stderr_tty = std::io::stderr().is_terminal();
    let bar = (!quiet && stderr_tty).then(|| {
        let bar = indicatif::ProgressBar::new(4);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} [{pos}/{len}] {msg}")
                .expect("valid template"),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(100));
        bar
    });
    let mut on_phase = |phase: maestro::train::Phase| match &bar {
        Some(bar) => {
            bar.set_message(phase.label());
            bar.inc(1);
        }
        None if !quiet => eprintln!("maestro: {}", phase.label()),
        None => {}
    };
    let result = maestro::train::train(dir, opts, &mut on_phase);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let color = use_color(color, std::io::stdout().is_terminal());
    let show_findings =
        !report.check.findings.is_empty() || !matches!(format, OutputFormat::Graphical);
    if show_findings && !write_stdout(&render_findings(&report.check, format, color)) {
        return ExitCode::from(2);
    }
    let short = &report.fingerprint[..12];
    match &report.status {
        Status::Written { path, bytes } => {
            if !quiet {
                eprintln!(
                    "Trained model written to {} ({bytes} bytes, fingerprint {short})",
                    path.display()
                );
            }
            ExitCode::SUCCESS
        }
        Status::Unchanged { path } => {
            if !quiet {
                eprintln!(
                    "Nothing changed since {} (fingerprint {short}); no model written. Use --force to rebuild.",
                    path.display()
                );
            }
            ExitCode::SUCCESS
        }
        Status::Blocked => {
            let counts = Counts::of(&report.check.findings);
            eprintln!(
                "Training stopped: {} error{} must be fixed first; no model written.",
                counts.errors,
                if counts.errors == 1 { "" } else { "s" }
            );
            ExitCode::from(1)
        }
    }
}

/// Load a model for running: the engine and a (lazily started) worker.
fn load_runtime(
    model: Option<PathBuf>,
    python: &str,
) -> Result<
    (
        maestro::runtime::engine::Engine,
        maestro::runtime::worker::Worker,
    ),
    String,
> {
    let path = match model {
        Some(p) => p,
        None => maestro::train::newest_archive(std::path::Path::new("models"))
            .ok_or("no model given and none found in ./models; run `maestro train` first")?,
    };
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let loaded = maestro::runtime::load_model(&bytes)
        .map_err(|e| format!("{} is not a usable model: {e}", path.display()))?;
    let dir =
        maestro::runtime::worker::extract_package(&loaded.files, &loaded.manifest.fingerprint)
            .map_err(|e| format!("cannot unpack the model's Python sources: {e}"))?;
    // The seeds: a tool module that cannot be imported stops the model
    // load, naming the file, rather than surfacing as a missing tool in the
    // middle of a conversation. A model without Python tools needs no
    // Python at all.
    let modules = loaded.manifest.python_modules();
    let mut worker =
        maestro::runtime::worker::Worker::new(python, dir).with_modules(modules.clone());
    if !modules.is_empty() {
        worker
            .start()
            .map_err(|e| format!("cannot start the Python tool worker: {e}"))?;
        if !worker.load_errors().is_empty() {
            let n = worker.load_errors().len();
            let mut message = format!(
                "cannot load {}: {n} tool module{} failed to import",
                path.display(),
                if n == 1 { "" } else { "s" }
            );
            for e in worker.load_errors() {
                message.push_str(&format!("\n  {}: {}", e.path, e.error));
            }
            message.push_str("\nhelp: fix the module and train again; `maestro train` imports every tool module and reports the failing line");
            return Err(message);
        }
    }
    Ok((
        maestro::runtime::engine::Engine::new(loaded.manifest, loaded.knowledge),
        worker,
    ))
}

/// `maestro shell`'s terminal: bot messages on stdout, line-flushed; the
/// prompt, interruptions and `--debug` events on stderr.
struct ShellTerminal {
    interactive: bool,
    debug: bool,
}

impl maestro::runtime::shell::Terminal for ShellTerminal {
    fn say(&mut self, text: &str) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }

    fn prompt(&mut self) {
        if self.interactive {
            eprint!("you> ");
        }
    }

    fn turn_ended(
        &mut self,
        end: maestro::runtime::driver::TurnEnd,
        events: &[maestro::runtime::engine::Event],
    ) {
        if self.debug {
            for event in events {
                if let Ok(json) = serde_json::to_value(event) {
                    eprintln!("event: {json}");
                }
            }
        }
        if end == maestro::runtime::driver::TurnEnd::Interrupted && self.interactive {
            eprintln!("(interrupted)");
        }
    }

    fn shows_tools(&self) -> bool {
        self.debug
    }

    fn tools(&mut self, tools: &[maestro::runtime::engine::ToolState]) {
        for line in maestro::runtime::shell::tool_lines(tools) {
            eprintln!("{line}");
        }
    }
}

fn shell(model: Option<PathBuf>, debug: bool, python: &str) -> ExitCode {
    let (engine, mut worker) = match load_runtime(model, python) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let man = &engine.manifest;
    let group = man
        .agent
        .model_group
        .as_deref()
        .and_then(|id| man.model_groups.iter().find(|g| g.id == id))
        .or_else(|| man.model_groups.first());
    let Some(config) = group.and_then(|g| g.models.first()) else {
        eprintln!(
            "error: the model has no model group to talk to (integrations.yml `model_groups`)"
        );
        return ExitCode::from(2);
    };
    let llm = match maestro::runtime::llm::from_config(config, &|v| std::env::var(v).ok()) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    use maestro::runtime::shell::{self, LineSource, ReadLines, TypeAhead};
    let interactive = std::io::stdin().is_terminal();
    let mut session = maestro::runtime::driver::Session::new(&engine, &mut worker, llm);
    // In a terminal a line typed while a turn runs interrupts it (barge-in,
    // D13); piped input is read only once each turn has ended (spec §5).
    let mut lines: Box<dyn LineSource> = if interactive {
        Box::new(TypeAhead::spawn(std::io::BufReader::new(std::io::stdin())))
    } else {
        Box::new(ReadLines(std::io::stdin().lock()))
    };
    shell::run(
        &mut session,
        &mut *lines,
        &mut ShellTerminal { interactive, debug },
    );
    ExitCode::SUCCESS
}

fn test(paths: Vec<PathBuf>, model: Option<PathBuf>, format: TestFormat, python: &str) -> ExitCode {
    use maestro::runtime::report::{self, Failure, TestResult};
    let paths = if paths.is_empty() {
        vec![PathBuf::from("tests")]
    } else {
        paths
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for p in &paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .into_iter()
                .flatten()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "yml" || x == "yaml"))
                .collect();
            found.sort();
            files.extend(found);
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            eprintln!("error: {} does not exist", p.display());
            return ExitCode::from(2);
        }
    }
    if files.is_empty() {
        eprintln!("error: no test files (*.yml) found");
        return ExitCode::from(2);
    }
    let (engine, mut worker) = match load_runtime(model, python) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut results: Vec<TestResult> = Vec::new();
    for f in &files {
        let label = f.display().to_string();
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: cannot read {label}: {e}");
                return ExitCode::from(2);
            }
        };
        match maestro::runtime::testfile::parse(&text) {
            Ok(tf) => results.extend(maestro::runtime::runner::run_file(
                &engine,
                &mut worker,
                &label,
                &text,
                &tf,
            )),
            Err(errors) => {
                for e in errors {
                    let line = text[..e.span.start.min(text.len())].matches('\n').count() + 1;
                    results.push(TestResult {
                        file: label.clone(),
                        name: format!("{label} (invalid test file)"),
                        failure: Some(Failure {
                            step: None,
                            line: Some(line),
                            message: e.message,
                        }),
                    });
                }
            }
        }
    }
    let out = match format {
        TestFormat::Text => report::text(&results),
        TestFormat::Junit => report::junit(&results),
    };
    if !write_stdout(&out) {
        return ExitCode::from(2);
    }
    if report::counts(&results).1 > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn inspect(path: &std::path::Path, json: bool) -> ExitCode {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let model = match maestro::inspect::read(&bytes) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {} is not a usable model: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let text = if json {
        serde_json::to_string_pretty(&model.manifest).expect("manifest serializes") + "\n"
    } else {
        format!(
            "model {}\n{}",
            path.display(),
            maestro::inspect::summary(&model)
        )
    };
    if write_stdout(&text) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

fn explain(code: Option<&str>) -> ExitCode {
    let rules = maestro::checks::RULES;
    let Some(code) = code else {
        let mut codes: Vec<_> = rules.iter().collect();
        codes.sort_by_key(|r| r.code);
        for r in codes {
            println!("{:<40} {}", r.code, r.severity);
        }
        return ExitCode::SUCCESS;
    };
    match maestro::checks::rule(code) {
        Some(rule) => {
            println!("# {} ({})\n", rule.code, rule.severity);
            print!("{}", rule.explain());
            ExitCode::SUCCESS
        }
        None => {
            let suggestion = maestro::suggest::did_you_mean(code, rules.iter().map(|r| r.code));
            eprintln!("error: unknown finding code `{code}`");
            if let Some(s) = suggestion {
                eprintln!("  help: did you mean `{s}`?");
            }
            eprintln!("  help: `maestro explain` lists every code");
            ExitCode::from(2)
        }
    }
}
