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
    /// Print the documentation of a finding code (all codes without one).
    Explain {
        /// A finding code, e.g. `tools.undeclared_memory_write`.
        code: Option<String>,
    },
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
        Command::Explain { code } => explain(code.as_deref()),
    }
}

fn check(dir: PathBuf, format: OutputFormat, deny_warnings: bool, color: ColorChoice) -> ExitCode {
    let outcome = match maestro::check(&dir) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let color = match color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
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
    let text = render::render(
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
    );
    let mut lock = stdout.lock();
    if lock
        .write_all(text.as_bytes())
        .and_then(|_| lock.flush())
        .is_err()
    {
        return ExitCode::from(2);
    }
    let counts = Counts::of(&outcome.findings);
    if counts.errors > 0 || (deny_warnings && counts.warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
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
