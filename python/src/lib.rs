//! The native module of the Python package, `toolcap._toolcap`: `cap`,
//! `Capper`, `run`, and the store's `summary`, `show` and `list_outputs`
//! over the toolcap library, and `main`, the
//! command line itself, which the package's `toolcap` command runs.
//!
//! Options arrive as keyword arguments, each found in the command line's
//! registry of options, read into the value its entry accepts and applied
//! through the same update as the command line's option, its value judged
//! by the same parser: they mean what they mean there, and a bad one
//! raises ValueError with the command line's message. A result carries the
//! `--json` report, read back from what toolcap renders, so that its schema
//! is written once (in toolcap's `render/json.rs`). Capping, and waiting on
//! a command, run with the GIL released. Nothing here changes the state of
//! the Python process except `main`, which is the process.

use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use pyo3::exceptions::{
    PyAttributeError, PyNotADirectoryError, PyOSError, PyRuntimeError, PyTypeError,
    PyUnicodeEncodeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMemoryView, PySlice, PyString,
};
use toolcap::cli::{Accepts, Function, Named, Value, named};
use toolcap::run::{ChildExit, Config, Mode, Report};
use toolcap::store::StoreTarget;

/// Code points of a str encoded and capped at a time: a large str is never
/// copied whole, and the GIL is released for each piece. Small enough that
/// the pieces stay below glibc's mmap threshold and reuse the same memory:
/// 32 MB of ASCII took 20 ms in pieces of 64 Ki, 125 ms in pieces of 1 Mi
/// (each freshly mapped and page-faulted), 80 ms as one `encode()`.
const STR_PIECE: usize = 1 << 16;

/// The options the keyword arguments `options` of `function`, named
/// `function_name`, give: each keyword is found in the command line's
/// registry of options (`toolcap::cli::keyword`), whose entry says which
/// functions take it and what it accepts, so that an option the command
/// line gains needs no code here (only its line in `_toolcap.pyi`).
fn arguments(
    function_name: &str,
    options: Option<&Bound<'_, PyDict>>,
    function: Function,
) -> PyResult<Vec<(Named, Value)>> {
    let mut given = Vec::new();
    let Some(options) = options else {
        return Ok(given);
    };
    for (name, value) in options.iter() {
        let name: String = name.extract()?;
        let option = toolcap::cli::keyword(&name, function).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "{function_name}() got an unexpected keyword argument '{name}'"
            ))
        })?;
        if !value.is_none() {
            given.push((option, read(&name, option.accepts(), &value)?));
        }
    }
    Ok(given)
}

/// The keyword argument `name=value`, as the value its option accepts.
fn read(name: &str, accepts: Accepts, value: &Bound<'_, PyAny>) -> PyResult<Value> {
    Ok(match accepts {
        Accepts::Switch => Value::Bool(boolean(name, value)?),
        Accepts::Word => Value::Word(word(name, value)?),
        Accepts::Path => Value::Word(os_value(name, value)?),
        Accepts::Duration => Value::Word(duration(name, value)?),
        Accepts::Words if value.is_instance_of::<PyString>() => Value::Word(value.extract()?),
        Accepts::Words => {
            let mut words = Vec::new();
            for item in value
                .try_iter()
                .map_err(|_| expected(name, "a str or a sequence of str", value))?
            {
                let item = item?;
                if !item.is_instance_of::<PyString>() {
                    return Err(expected(name, "a str or a sequence of str", &item));
                }
                words.push(item.extract()?);
            }
            Value::Words(words)
        }
        Accepts::SwitchOrTemplate if value.is_instance_of::<PyBool>() => {
            Value::Bool(value.is_truthy()?)
        }
        Accepts::SwitchOrTemplate if value.is_instance_of::<PyString>() => {
            Value::Word(value.extract()?)
        }
        Accepts::SwitchOrTemplate => return Err(expected(name, "a bool or a template str", value)),
        Accepts::SwitchOrPath if value.is_instance_of::<PyBool>() => {
            Value::Bool(value.is_truthy()?)
        }
        Accepts::SwitchOrPath => Value::Word(os_value(name, value)?),
    })
}

/// An option's value as the command line reads it: an int in decimal, a
/// str, bytes or a path as they are. The option's parser judges it.
fn word(name: &str, value: &Bound<'_, PyAny>) -> PyResult<OsString> {
    if value.is_instance_of::<PyBool>() {
        return Err(expected(name, "an int or a str", value));
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(value.str()?.to_string().into());
    }
    os_string(name, value).map_err(|_| expected(name, "an int or a str", value))
}

fn boolean(name: &str, value: &Bound<'_, PyAny>) -> PyResult<bool> {
    if !value.is_instance_of::<PyBool>() {
        return Err(expected(name, "a bool", value));
    }
    value.is_truthy()
}

/// Seconds as a DURATION: an int as it is written (the command line's
/// unit is the second), a float in milliseconds, rounded up (so that a
/// tiny timeout is not 0, which means none); a str as it is. The parser
/// judges each as it judges the command line's, so that one too large for
/// it (more than 2^64 - 1 ms) or negative, whatever its type, is its
/// ValueError; a float is never converted to an int that could overflow.
fn duration(name: &str, value: &Bound<'_, PyAny>) -> PyResult<OsString> {
    if value.is_instance_of::<PyBool>() {
        return Err(expected(name, "seconds or a DURATION str", value));
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(value.str()?.to_string().into());
    }
    if value.is_instance_of::<PyFloat>() {
        let seconds: f64 = value.extract()?;
        if !seconds.is_finite() || seconds < 0.0 {
            return Ok(value.str()?.to_string().into());
        }
        // Written out in full, digits the parser reads as milliseconds.
        return Ok(format!("{:.0}ms", (seconds * 1000.0).ceil()).into());
    }
    if value.is_instance_of::<PyString>() {
        return value.extract();
    }
    Err(expected(name, "seconds or a DURATION str", value))
}

/// A str (in the file-system encoding, as `os.fsencode` would give it),
/// bytes, or an `os.PathLike`.
fn os_string(name: &str, value: &Bound<'_, PyAny>) -> PyResult<OsString> {
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return Ok(OsString::from_vec(bytes.as_bytes().to_vec()));
    }
    if value.is_instance_of::<PyString>() {
        return value.extract();
    }
    if value.hasattr("__fspath__")? {
        let path = value.py().import("os")?.call_method1("fspath", (value,))?;
        return os_string(name, &path);
    }
    Err(expected(name, "a str, bytes or a path", value))
}

/// A path, an argument or a variable handed to the OS as a C string, as
/// [`os_string`] reads it.
fn os_value(name: &str, value: &Bound<'_, PyAny>) -> PyResult<OsString> {
    without_nul(name, os_string(name, value)?)
}

/// Refuses a NUL byte in what the OS takes as a C string (a path, an
/// argument, the environment), as Python's os and subprocess do: no command
/// line can hold one, and toolcap would otherwise report the exec or the
/// open that failed, naming the wrong thing. `what` names the argument.
fn without_nul(what: &str, value: OsString) -> PyResult<OsString> {
    if value.as_bytes().contains(&0) {
        return Err(PyValueError::new_err(format!(
            "embedded null byte in {what}"
        )));
    }
    Ok(value)
}

fn expected(name: &str, what: &str, value: &Bound<'_, PyAny>) -> PyErr {
    let type_name = value
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |name| name.to_string());
    PyTypeError::new_err(format!("{name} must be {what}, not {type_name}"))
}

/// The run the command line would make of the options `options`.
fn configure(options: Vec<(Named, Value)>) -> PyResult<Config> {
    toolcap::cli::config(options).map_err(PyValueError::new_err)
}

/// toolcap's errors as Python's: a usage error or a refused store is a
/// ValueError with the command line's message, an I/O failure an OSError
/// (of the subclass its errno names).
fn error(err: toolcap::Error) -> PyErr {
    match err {
        toolcap::Error::Usage(message) | toolcap::Error::Store(message) => {
            PyValueError::new_err(message)
        }
        toolcap::Error::Io { context, source } => {
            let message = format!("{context}: {source}");
            match (source.raw_os_error(), source.kind()) {
                (Some(errno), _) => PyOSError::new_err((errno, message)),
                (None, io::ErrorKind::NotADirectory) => PyNotADirectoryError::new_err(message),
                (None, _) => PyOSError::new_err(message),
            }
        }
        other => PyRuntimeError::new_err(other.to_string()),
    }
}

/// Data to cap, judged whole before any of it is consumed, so that a
/// refused one leaves a `Capper` (and a spill file) as it was.
enum Payload<'py> {
    /// Bytes as they are (a short str encoded, a bytearray or memoryview
    /// copied: another thread could resize it meanwhile).
    Bytes(Bound<'py, PyBytes>),
    /// A str longer than [`STR_PIECE`] code points, each of which has a
    /// UTF-8 encoding: it is encoded a piece at a time as it is consumed.
    Text(Bound<'py, PyString>),
}

/// `data` as a [`Payload`]: a TypeError for what is not data, and for a
/// str with a lone surrogate the UnicodeEncodeError that `data.encode()`
/// raises, its `start` and `end` in the whole str.
fn payload<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Payload<'py>> {
    if let Ok(bytes) = data.cast::<PyBytes>() {
        return Ok(Payload::Bytes(bytes.clone()));
    }
    if let Ok(text) = data.cast::<PyString>() {
        if text.len()? <= STR_PIECE {
            return Ok(Payload::Bytes(text.encode_utf8()?));
        }
        check_encodable(py, text)?;
        return Ok(Payload::Text(text.clone()));
    }
    if data.is_instance_of::<PyByteArray>() || data.is_instance_of::<PyMemoryView>() {
        let copy = py.get_type::<PyBytes>().call1((data,))?;
        return Ok(Payload::Bytes(copy.cast_into::<PyBytes>()?));
    }
    Err(expected(
        "data",
        "str or bytes (or a bytearray or memoryview)",
        data,
    ))
}

/// The code points `start..end` of `text`, as a str.
fn piece<'py>(
    text: &Bound<'py, PyString>,
    start: usize,
    end: usize,
) -> PyResult<Bound<'py, PyString>> {
    let slice = PySlice::new(text.py(), start as isize, end as isize, 1);
    Ok(text.get_item(slice)?.cast_into::<PyString>()?)
}

/// Refuses a long str that holds a lone surrogate, before any of it is
/// consumed, in memory bounded as consuming it is: an ASCII str is known
/// to have none (`str.isascii` reads a flag), any other is encoded a piece
/// at a time to UTF-16, which refuses the same code points as UTF-8 and is
/// 2 to 3 times faster to make, and thrown away.
fn check_encodable(py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<()> {
    // str's own method, which a subclass cannot override.
    let str_type = py.get_type::<PyString>();
    if str_type.call_method1("isascii", (text,))?.is_truthy()? {
        return Ok(());
    }
    let length = text.len()?;
    for start in (0..length).step_by(STR_PIECE) {
        let end = length.min(start + STR_PIECE);
        if let Err(err) = piece(text, start, end)?.call_method1("encode", ("utf-16-le",)) {
            if !err.is_instance_of::<PyUnicodeEncodeError>(py) {
                return Err(err);
            }
            let first: usize = err.value(py).getattr("start")?.extract()?;
            return Err(surrogate_error(py, text, start + first)?);
        }
        py.check_signals()?;
    }
    Ok(())
}

/// The error `text.encode()` raises for the lone surrogate at `first`, in
/// `text` whole: its range is the run of surrogates that starts there,
/// which may go on past the piece where it was found, so UTF-8's own
/// encoder measures it a window at a time.
fn surrogate_error(py: Python<'_>, text: &Bound<'_, PyString>, first: usize) -> PyResult<PyErr> {
    let length = text.len()?;
    let mut end = first;
    let mut reason = None;
    while end < length {
        let stop = length.min(end + STR_PIECE);
        let Err(err) = piece(text, end, stop)?.encode_utf8() else {
            break;
        };
        if !err.is_instance_of::<PyUnicodeEncodeError>(py) {
            return Err(err);
        }
        let err = err.value(py);
        if err.getattr("start")?.extract::<usize>()? != 0 {
            break;
        }
        if reason.is_none() {
            reason = Some(err.getattr("reason")?.extract::<String>()?);
        }
        end += err.getattr("end")?.extract::<usize>()?;
        if end < stop {
            break;
        }
    }
    let reason = reason.unwrap_or_else(|| "surrogates not allowed".to_string());
    Ok(PyUnicodeEncodeError::new_err((
        "utf-8",
        text.clone().unbind(),
        first,
        end,
        reason,
    )))
}

/// Hands `payload` to `consume` as bytes, with the GIL released: bytes at
/// once, a str as its UTF-8 a piece at a time. `consume` returns false to
/// refuse it.
fn feed(
    py: Python<'_>,
    payload: &Payload<'_>,
    consume: &mut (dyn FnMut(&[u8]) -> bool + Send),
) -> PyResult<bool> {
    let text = match payload {
        Payload::Bytes(bytes) => {
            let bytes = bytes.as_bytes();
            return Ok(py.detach(|| consume(bytes)));
        }
        Payload::Text(text) => text,
    };
    let length = text.len()?;
    for start in (0..length).step_by(STR_PIECE) {
        let end = length.min(start + STR_PIECE);
        let encoded = piece(text, start, end)?.encode_utf8()?;
        let bytes = encoded.as_bytes();
        if !py.detach(|| consume(bytes)) {
            return Ok(false);
        }
        // A long str may take a while: let Ctrl-C through.
        py.check_signals()?;
    }
    Ok(true)
}

/// The result of capping one stream: a [`CapResult`], or a separate
/// stderr (whose report has no run-wide fields: no `tokenizer`,
/// `problems`, `profile` or `interrupted_by`).
#[pyclass(module = "toolcap", frozen, subclass)]
struct StreamResult {
    data: Py<PyBytes>,
    /// The `--json` report (for a separate stderr, its `stderr` object).
    report: Py<PyDict>,
}

impl StreamResult {
    fn new(py: Python<'_>, data: &[u8], report: Bound<'_, PyDict>) -> StreamResult {
        StreamResult {
            data: PyBytes::new(py, data).unbind(),
            report: report.unbind(),
        }
    }
}

/// The report's field `name`, or the AttributeError Python raises for an
/// attribute `slf` does not have.
fn field<'py>(slf: &Bound<'py, StreamResult>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    match slf.get().report.bind(slf.py()).get_item(name)? {
        Some(value) => Ok(value),
        None => Err(PyAttributeError::new_err(format!(
            "'{}' object has no attribute '{name}'",
            slf.get_type().name()?
        ))),
    }
}

#[pymethods]
impl StreamResult {
    /// The exact bytes toolcap prints.
    #[getter]
    fn data(&self, py: Python<'_>) -> Py<PyBytes> {
        self.data.clone_ref(py)
    }

    /// `data` as a str, invalid UTF-8 replaced by U+FFFD.
    #[getter]
    fn text<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        field(slf, "output")
    }

    /// The `--json` report, as a dict.
    #[getter]
    fn report(&self, py: Python<'_>) -> Py<PyDict> {
        self.report.clone_ref(py)
    }

    /// The report's fields, as attributes.
    fn __getattr__<'py>(slf: &Bound<'py, Self>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        field(slf, name)
    }

    fn __dir__(slf: &Bound<'_, Self>) -> PyResult<Vec<String>> {
        let py = slf.py();
        let object = py.import("builtins")?.getattr("object")?;
        let mut names: Vec<String> = object.call_method1("__dir__", (slf,))?.extract()?;
        for key in slf.get().report.bind(py).keys() {
            names.push(key.extract()?);
        }
        Ok(names)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let fields = ["truncated", "bytes", "lines", "tokens"]
            .iter()
            .map(|name| Ok(format!("{name}={}", field(slf, name)?.repr()?)))
            .collect::<PyResult<Vec<_>>>()?;
        let class = slf.get_type().name()?;
        Ok(format!("{class}({})", fields.join(", ")))
    }
}

/// The result of capping: a [`StreamResult`] whose report also has the
/// run-wide fields.
#[pyclass(name = "Result", module = "toolcap", frozen, subclass, extends = StreamResult)]
struct CapResult;

impl CapResult {
    fn new(
        py: Python<'_>,
        data: &[u8],
        report: Bound<'_, PyDict>,
    ) -> PyClassInitializer<CapResult> {
        PyClassInitializer::from(StreamResult::new(py, data, report)).add_subclass(CapResult)
    }
}

/// The result of running a command: a [`CapResult`] of its output, and how
/// it ended.
#[pyclass(module = "toolcap", frozen, extends = CapResult)]
struct RunResult {
    exit_code: i32,
    signal: Option<i32>,
    timed_out: bool,
    duration: f64,
    stderr: Option<Py<StreamResult>>,
}

#[pymethods]
impl RunResult {
    /// The status a shell would report: the command's exit status, 128+N
    /// after signal N, 124 after the timeout, 127 when not found, 126 when
    /// not executable.
    #[getter]
    fn exit_code(&self) -> i32 {
        self.exit_code
    }

    /// The signal that killed the command, if one did.
    #[getter]
    fn signal(&self) -> Option<i32> {
        self.signal
    }

    /// Whether the timeout stopped the command.
    #[getter]
    fn timed_out(&self) -> bool {
        self.timed_out
    }

    /// Seconds from start to exit.
    #[getter]
    fn duration(&self) -> f64 {
        self.duration
    }

    /// With `stderr="separate"`, the capped stderr.
    #[getter]
    fn stderr(&self, py: Python<'_>) -> Option<Py<StreamResult>> {
        self.stderr.as_ref().map(|stderr| stderr.clone_ref(py))
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let base = StreamResult::__repr__(slf.as_super().as_super())?;
        let this = slf.get();
        Ok(base.replacen('(', &format!("(exit_code={}, ", this.exit_code), 1))
    }
}

/// The report of `json` as Python objects.
fn json_dict<'py>(py: Python<'py>, json: &[u8]) -> PyResult<Bound<'py, PyDict>> {
    let value: serde_json::Value = serde_json::from_slice(json)
        .map_err(|err| PyRuntimeError::new_err(format!("toolcap's report is not JSON: {err}")))?;
    Ok(to_python(py, &value)?.cast_into::<PyDict>()?)
}

fn to_python<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value as Json;
    Ok(match value {
        Json::Null => py.None().into_bound(py),
        Json::Bool(on) => PyBool::new(py, *on).to_owned().into_any(),
        Json::Number(number) => match (number.as_u64(), number.as_i64()) {
            (Some(unsigned), _) => unsigned.into_pyobject(py)?.into_any(),
            (None, Some(signed)) => signed.into_pyobject(py)?.into_any(),
            (None, None) => number.as_f64().into_pyobject(py)?.into_any(),
        },
        Json::String(text) => PyString::new(py, text).into_any(),
        Json::Array(items) => {
            let items = items
                .iter()
                .map(|item| to_python(py, item))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Json::Object(fields) => {
            let dict = PyDict::new(py);
            for (name, field) in fields {
                dict.set_item(name, to_python(py, field)?)?;
            }
            dict.into_any()
        }
    })
}

/// The result of capping one stream with `config`.
fn cap_result(py: Python<'_>, report: &Report, config: &Config) -> PyResult<Py<CapResult>> {
    let rendered = toolcap::run::render(report, config).map_err(error)?;
    let fields = json_dict(py, &rendered.json)?;
    Py::new(py, CapResult::new(py, &rendered.output, fields))
}

/// Caps `data` and returns the result.
#[pyfunction]
#[pyo3(signature = (data, **options))]
fn cap(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<CapResult>> {
    let config = configure(arguments("cap", options, Function::Cap)?)?;
    // Judged before the capper opens a spill file, which refused data
    // must leave untouched.
    let data = payload(py, data)?;
    let mut capper = py
        .detach(|| toolcap::Capper::for_run(&config))
        .map_err(error)?;
    feed(py, &data, &mut |chunk| {
        capper.push(chunk);
        true
    })?;
    let report = py.detach(|| capper.finish_run());
    cap_result(py, &report, &config)
}

/// Caps a stream pushed in chunks, in memory bounded by the budget.
#[pyclass(module = "toolcap")]
struct Capper {
    config: Config,
    /// `None` once finished.
    capper: Mutex<Option<toolcap::Capper>>,
}

impl Capper {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<toolcap::Capper>> {
        // A panic while pushing is reported where it happened; what is
        // left is still a capper.
        self.capper.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl Capper {
    #[new]
    #[pyo3(signature = (**options))]
    fn new(py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Capper> {
        let config = configure(arguments("Capper", options, Function::Cap)?)?;
        let capper = py
            .detach(|| toolcap::Capper::for_run(&config))
            .map_err(error)?;
        Ok(Capper {
            config,
            capper: Mutex::new(Some(capper)),
        })
    }

    /// Consumes the next chunk of the stream: all of it, or (when it is
    /// refused) none of it.
    fn push(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = payload(py, data)?;
        let accepted = feed(py, &data, &mut |chunk| match self.lock().as_mut() {
            Some(capper) => {
                capper.push(chunk);
                true
            }
            None => false,
        })?;
        if !accepted {
            return Err(PyValueError::new_err("push() after finish()"));
        }
        Ok(())
    }

    /// Ends the stream and returns the result.
    fn finish(&self, py: Python<'_>) -> PyResult<Py<CapResult>> {
        let capper = py
            .detach(|| self.lock().take())
            .ok_or_else(|| PyValueError::new_err("finish() was already called"))?;
        let report = py.detach(|| capper.finish_run());
        cap_result(py, &report, &self.config)
    }
}

/// Runs a command and caps what it prints.
#[pyfunction]
#[pyo3(signature = (
    cmd, *, cwd=None, env=None, extra_env=None, input=None, cancel=None, **options
))]
#[allow(clippy::too_many_arguments)] // Python's keywords, one each.
fn run(
    py: Python<'_>,
    cmd: &Bound<'_, PyAny>,
    cwd: Option<&Bound<'_, PyAny>>,
    env: Option<&Bound<'_, PyAny>>,
    extra_env: Option<&Bound<'_, PyAny>>,
    input: Option<&Bound<'_, PyAny>>,
    cancel: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<RunResult>> {
    // Asked before anything starts, so that a wrong object is a TypeError
    // now rather than an error in the middle of the run.
    let cancel = cancel.map(cancel_flag).transpose()?;
    let mut options = arguments("run", options, Function::Run)?;
    // The command runs in its own process group, where reading a terminal
    // would stop it: its stdin is `input`, or nothing.
    options.push((named::NO_STDIN, Value::Bool(true)));
    if cmd.is_instance_of::<PyString>() {
        let command = without_nul("cmd", cmd.extract::<OsString>()?)?;
        options.push((named::COMMAND, Value::Word(command)));
    } else if cmd.is_instance_of::<PyBytes>() {
        return Err(expected("cmd", "a str or a sequence of arguments", cmd));
    } else {
        let words = cmd
            .try_iter()
            .map_err(|_| expected("cmd", "a str or a sequence of arguments", cmd))?;
        let mut program = Vec::new();
        for (index, word) in words.enumerate() {
            program.push(os_value(&format!("cmd[{index}]"), &word?)?);
        }
        options.push((named::PROGRAM, Value::Words(program)));
    }
    let mut config = configure(options)?;
    let Mode::Wrap(wrap) = &mut config.mode else {
        return Err(PyRuntimeError::new_err(
            "the command line did not make a command of cmd",
        ));
    };
    wrap.cwd = cwd
        .map(|dir| os_value("cwd", dir))
        .transpose()?
        .map(PathBuf::from);
    wrap.env = env.map(|env| environment("env", env)).transpose()?;
    if let Some(extra) = extra_env {
        // Over `env` when given, else over this process's environment
        // (os.environ's changes included: they reach the C environment).
        let mut merged = wrap
            .env
            .take()
            .unwrap_or_else(|| std::env::vars_os().collect());
        for (name, value) in environment("extra_env", extra)? {
            merged.retain(|(old, _)| *old != name);
            merged.push((name, value));
        }
        wrap.env = Some(merged);
    }
    wrap.input = match input {
        None => None,
        Some(input) => {
            let mut bytes = Vec::new();
            feed(py, &payload(py, input)?, &mut |chunk| {
                bytes.extend_from_slice(chunk);
                true
            })?;
            Some(bytes)
        }
    };
    // Ctrl-C arrives as a flag that only Python's main thread acts on, and
    // `cancel` is set from any thread (a server whose client went away):
    // the run looks at both every 50 ms.
    let interrupted = Mutex::new(None);
    let ran = py.detach(|| {
        toolcap::run::command(&config, || {
            Python::attach(|py| {
                let asked = match py.check_signals() {
                    Ok(()) => cancel
                        .as_ref()
                        .map_or(Ok(false), |flag| flag.bind(py).call0()?.is_truthy()),
                    Err(err) => Err(err),
                };
                match asked {
                    Ok(asked) => asked,
                    Err(err) => {
                        *interrupted.lock().unwrap_or_else(PoisonError::into_inner) = Some(err);
                        true
                    }
                }
            })
        })
    });
    if let Some(err) = interrupted
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        return Err(err);
    }
    let report = ran.map_err(error)?;
    let rendered = toolcap::run::render(&report, &config).map_err(error)?;
    let fields = json_dict(py, &rendered.json)?;
    let stderr = match (&rendered.stderr, fields.get_item("stderr")?) {
        (Some(text), Some(stderr)) => Some(Py::new(
            py,
            StreamResult::new(py, text, stderr.cast_into::<PyDict>()?),
        )?),
        _ => None,
    };
    let child = report
        .child
        .ok_or_else(|| PyRuntimeError::new_err("the run has no command"))?;
    let result = RunResult {
        exit_code: child.status(),
        signal: match child.exit {
            ChildExit::Signaled(signal) => Some(signal),
            _ => None,
        },
        timed_out: child.timed_out_after.is_some(),
        duration: child.duration.as_secs_f64(),
        stderr,
    };
    Py::new(
        py,
        CapResult::new(py, &rendered.output, fields).add_subclass(result),
    )
}

/// The `is_set` method of `run`'s `cancel` (a `threading.Event`, or any
/// object with one).
fn cancel_flag(cancel: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    match cancel.getattr("is_set") {
        Ok(is_set) if is_set.is_callable() => Ok(is_set.unbind()),
        _ => Err(expected(
            "cancel",
            "an object with an is_set() method (a threading.Event)",
            cancel,
        )),
    }
}

/// A mapping of names to values (str or bytes), the `keyword` argument,
/// refused as subprocess refuses an environment: a NUL byte anywhere, or a
/// `=` in a name (which would make another variable of it).
fn environment(keyword: &str, mapping: &Bound<'_, PyAny>) -> PyResult<Vec<(OsString, OsString)>> {
    let items = mapping
        .call_method0("items")
        .map_err(|_| expected(keyword, "a mapping", mapping))?;
    let mut env = Vec::new();
    for item in items.try_iter()? {
        let (name, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
        let shown = name.repr()?;
        let key = os_value(&format!("{keyword} key {shown}"), &name)?;
        if key.as_bytes().contains(&b'=') {
            return Err(PyValueError::new_err(format!(
                "illegal environment variable name in {keyword}: {shown}"
            )));
        }
        env.push((key, os_value(&format!("{keyword}[{shown}]"), &value)?));
    }
    Ok(env)
}

/// The store a store function of the API reads: the default one (`store`
/// None or True), or the directory `store` names.
fn store_dir(function: &str, store: Option<&Bound<'_, PyAny>>) -> PyResult<PathBuf> {
    match store {
        Some(dir) if !dir.is_instance_of::<PyBool>() => Ok(PathBuf::from(os_value("store", dir)?)),
        Some(dir) if !dir.is_truthy()? => Err(PyValueError::new_err(format!(
            "{function}() needs a store: store=True or a path"
        ))),
        _ => StoreTarget::default_dir(|name| std::env::var_os(name)).ok_or_else(|| {
            PyValueError::new_err(
                "the default store needs a home: set HOME or XDG_CACHE_HOME, or give store=PATH",
            )
        }),
    }
}

/// What `summary` and `list_outputs` take besides the store (the
/// registry's `Function::Listing`: redaction of the commands they print,
/// as `--summary ID --redact` redacts them), checked by the command line's
/// parser.
fn redaction(function: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<toolcap::Options> {
    Ok(configure(arguments(function, options, Function::Listing)?)?.options)
}

/// The line `toolcap --summary ID` prints, for an output of the store.
#[pyfunction]
#[pyo3(signature = (id, *, store=None, **options))]
fn summary(
    py: Python<'_>,
    id: &str,
    store: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let redact = redaction("summary", options)?;
    let target = StoreTarget::new(store_dir("summary", store)?);
    py.detach(|| toolcap::store::summary(&target, id, &redact))
        .map_err(error)
}

/// The capped view of a stored output, as `toolcap --show ID` prints it
/// given a budget: its lines `lines` ("A:B"), or with `grep` only its
/// matching lines, numbered (and `context` lines around each).
#[pyfunction]
#[pyo3(signature = (id, *, lines=None, grep=None, context=None, store=None, **options))]
fn show(
    py: Python<'_>,
    id: &Bound<'_, PyAny>,
    lines: Option<&Bound<'_, PyAny>>,
    grep: Option<&Bound<'_, PyAny>>,
    context: Option<&Bound<'_, PyAny>>,
    store: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<CapResult>> {
    // Its view is never spilled, and applies no profile: the registry
    // leaves out what `--show` refuses.
    let mut options = arguments("show", options, Function::Show)?;
    if !id.is_instance_of::<PyString>() {
        return Err(expected("id", "a str", id));
    }
    options.push((named::SHOW, Value::Word(word("id", id)?)));
    for (name, option, value) in [
        ("lines", named::LINES, lines),
        ("grep", named::GREP, grep),
        ("context", named::CONTEXT, context),
    ] {
        if let Some(value) = value.filter(|value| !value.is_none()) {
            options.push((option, Value::Word(word(name, value)?)));
        }
    }
    let store = store_dir("show", store)?.into_os_string();
    options.push((named::SPILL_DIR, Value::Word(store)));
    let config = configure(options)?;
    let view = py.detach(|| toolcap::store::show(&config)).map_err(error)?;
    let fields = json_dict(py, &view.rendered.json)?;
    Py::new(py, CapResult::new(py, &view.rendered.output, fields))
}

/// What `toolcap --list` prints: a line for each of the newest `limit`
/// outputs of the store, newest first.
#[pyfunction]
#[pyo3(signature = (limit=None, *, store=None, **options))]
fn list_outputs(
    py: Python<'_>,
    limit: Option<&Bound<'_, PyAny>>,
    store: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let redact = redaction("list_outputs", options)?;
    let limit = match limit.filter(|limit| !limit.is_none()) {
        None => None,
        Some(limit) => {
            let count = if limit.is_instance_of::<PyInt>() && !limit.is_instance_of::<PyBool>() {
                limit.extract::<i128>()?
            } else {
                return Err(expected("limit", "an int", limit));
            };
            if count < 0 {
                return Err(PyValueError::new_err(format!(
                    "invalid limit {count}: expected a whole number of outputs, 0 or more"
                )));
            }
            Some(usize::try_from(count).unwrap_or(usize::MAX))
        }
    };
    let target = StoreTarget::new(store_dir("list_outputs", store)?);
    py.detach(|| toolcap::store::list(&target, limit, &redact))
        .map_err(error)
}

/// The `toolcap` command: the command line itself, on `sys.argv`. Returns
/// its exit status.
#[pyfunction]
fn main(py: Python<'_>) -> PyResult<u8> {
    let argv: Vec<OsString> = py.import("sys")?.getattr("argv")?.extract()?;
    // This process is the command now: give it the signal dispositions the
    // cargo-built binary starts with. Python catches SIGINT and ignores
    // SIGXFSZ; both ignore SIGPIPE.
    let signal = py.import("signal")?;
    let default = signal.getattr("SIG_DFL")?;
    for name in ["SIGINT", "SIGXFSZ"] {
        if let Ok(number) = signal.getattr(name) {
            signal.call_method1("signal", (number, &default))?;
        }
    }
    // argv[0] is the script's path; the binary, found on PATH, sees its
    // name.
    let argv: Vec<OsString> = std::iter::once(OsString::from("toolcap"))
        .chain(argv.into_iter().skip(1))
        .collect();
    Ok(py.detach(|| toolcap::cli::main(argv)))
}

/// The native module.
#[pymodule]
fn _toolcap(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(cap, module)?)?;
    module.add_function(wrap_pyfunction!(run, module)?)?;
    module.add_function(wrap_pyfunction!(summary, module)?)?;
    module.add_function(wrap_pyfunction!(show, module)?)?;
    module.add_function(wrap_pyfunction!(list_outputs, module)?)?;
    module.add_function(wrap_pyfunction!(main, module)?)?;
    module.add_class::<StreamResult>()?;
    module.add_class::<CapResult>()?;
    module.add_class::<RunResult>()?;
    module.add_class::<Capper>()?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
