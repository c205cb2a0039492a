// `tilec trace FILE -o trace.html`: one self-contained HTML page (inline CSS and a few
// lines of inline script, nothing fetched) showing a compilation step by step: the input
// module, each pass's IR with a line diff against the previous step and its time, the
// generated device and host code, and every fragment's layout drawn as a grid (which
// thread holds element (i, j), in which register), read from the lowered module's
// tilec.layout.* attributes. The page reflows for narrow screens.
#include "compile_options.h"
#include "kernel_work.h"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

namespace tilec::cli {
namespace {

struct TraceOptions : CompileOptions {
  std::string output = "trace.html";
};

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A line diff (longest common subsequence) as HTML: removed lines in <del>, added in
// <ins>, unchanged ones plain; runs of unchanged lines far from a change are folded.
std::string diff_html(const std::string& before, const std::string& after, int* changed) {
  std::vector<std::string> a = lines_of(before), b = lines_of(after);
  size_t n = a.size(), m = b.size();
  *changed = 0;
  if (n * m > 16'000'000) return "<p>(the module is too large to diff here)</p>";
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  struct Line {
    char kind;
    const std::string* text;
  };
  std::vector<Line> out;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      out.push_back({' ', &a[i]}), ++i, ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out.push_back({'+', &b[j++]});
    } else {
      out.push_back({'-', &a[i++]});
    }
  }
  const size_t context = 3;
  std::vector<bool> keep(out.size(), false);
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k].kind == ' ') continue;
    ++*changed;
    for (size_t c = k >= context ? k - context : 0; c < std::min(out.size(), k + context + 1); ++c)
      keep[c] = true;
  }
  if (*changed == 0) return "<p class=\"same\">no change</p>";
  std::string html = "<pre class=\"diff\">";
  for (size_t k = 0; k < out.size(); ++k) {
    if (!keep[k]) {
      size_t skipped = 0;
      while (k < out.size() && !keep[k]) ++skipped, ++k;
      html += fmt::format("<span class=\"fold\">… {} unchanged lines</span>\n", skipped);
      --k;
      continue;
    }
    std::string text = escape(*out[k].text);
    if (out[k].kind == '+')
      html += "<ins>+ " + text + "</ins>\n";
    else if (out[k].kind == '-')
      html += "<del>- " + text + "</del>\n";
    else
      html += "  " + text + "\n";
  }
  return html + "</pre>";
}

// One fragment layout attribute drawn as a table: a cell per element (clipped to 32x32)
// showing thread and register, colored by thread.
std::string layout_html(const std::string& function, const std::string& text) {
  static const std::regex pattern(
      R"(^(\w+)\[([\d, ]+)\] (\S+): (.*?), \(([\w, ]+)\) -> (?:thread (.+?), )?register (.+?), (\d+) registers? per thread(.*)$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern))
    return fmt::format("<div class=\"layout\"><h4>{}</h4><p>{}</p></div>", escape(function),
                       escape(text));
  std::string name = m[1], dims_text = m[2], dtype = m[3], kind = m[4];
  std::vector<int64_t> dims;
  std::istringstream in(dims_text);
  for (std::string d; std::getline(in, d, ',');) dims.push_back(std::stoll(d));
  std::vector<std::string> vars;
  std::istringstream vin(m[5].str());
  for (std::string v; std::getline(vin, v, ',');)
    vars.push_back(v.substr(v.find_first_not_of(' ')));
  std::string thread = m[6], reg = m[7];
  int64_t rows = dims.size() == 2 ? dims[0] : 1, cols = dims.size() == 2 ? dims[1] : dims[0];
  const int64_t clip = 32;
  std::string html = fmt::format(
      "<div class=\"layout\" data-fragment=\"{}\"><h4>{} <small>[{}] {} in {}</small></h4>"
      "<p class=\"kind\">{}{}</p>",
      escape(name), escape(name), escape(dims_text), escape(dtype), escape(function), escape(kind),
      escape(m[9].str()));
  if (rows > clip || cols > clip)
    html += fmt::format("<p class=\"note\">showing the first {}x{} elements of {}x{}</p>",
                        std::min(rows, clip), std::min(cols, clip), rows, cols);
  html += "<div class=\"grid-wrap\"><table class=\"grid\"><tr><th></th>";
  for (int64_t j = 0; j < std::min(cols, clip); ++j) html += fmt::format("<th>{}</th>", j);
  html += "</tr>";
  for (int64_t i = 0; i < std::min(rows, clip); ++i) {
    html += fmt::format("<tr><th>{}</th>", i);
    for (int64_t j = 0; j < std::min(cols, clip); ++j) {
      std::map<std::string, double> names;
      if (vars.size() == 2)
        names = {{vars[0], double(i)}, {vars[1], double(j)}};
      else if (!vars.empty())
        names = {{vars[0], double(j)}};
      std::string cell;
      try {
        long t = thread.empty() ? -1 : long(evaluate_arithmetic(thread, names));
        long r = long(evaluate_arithmetic(reg, names));
        int hue = t < 0 ? 0 : int((t * 47) % 360);
        cell = t < 0 ? fmt::format("<td class=\"all\" title=\"every thread, register {}\">r{}</td>",
                                   r, r)
                     : fmt::format(
                           "<td style=\"background:hsl({},70%,85%)\" title=\"({}, {}): "
                           "thread {}, register {}\">T{}<br>r{}</td>",
                           hue, i, j, t, r, t, r);
      } catch (const std::exception&) {
        cell = "<td>?</td>";
      }
      html += cell;
    }
    html += "</tr>";
  }
  return html + "</table></div></div>";
}

// The one script: counts what the page holds into #summary (so a browser test can see the
// DOM it built) and lets a click on a grid cell say which thread and register hold it.
const char* kScript = R"(
(function(){var q=function(s){return document.querySelectorAll(s).length;};
document.getElementById('summary').textContent=q('section.pass')+' passes, '+
q('details.diff-block ins, details.diff-block del')+' changed lines, '+q('div.layout')+
' fragment layouts, '+q('table.grid td')+' layout cells drawn';
document.addEventListener('click',function(e){var t=e.target.closest('td[title]');
if(t){var p=t.closest('.layout').querySelector('.kind');p.textContent=t.title;}});})();
)";

const char* kStyle = R"(
:root{--fg:#1d1d1f;--muted:#666;--bg:#fff;--code:#f6f8fa;--add:#e6ffec;--del:#ffebe9}
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:12px 16px;border-bottom:1px solid #ddd}h1{font-size:1.2em;margin:0}
.meta{color:var(--muted);font-size:.9em}
main{display:flex;gap:16px;padding:0 16px}nav{flex:0 0 260px;position:sticky;top:0;align-self:flex-start;max-height:100vh;overflow:auto;padding:12px 0}
nav ol{padding-left:32px;margin:0}nav a{text-decoration:none;color:#0645ad}nav .ms{color:var(--muted);font-size:.85em}
article{flex:1;min-width:0}section{border-bottom:1px solid #eee;padding:8px 0}
h2{font-size:1.05em;margin:8px 0}h2 .ms{font-weight:normal;color:var(--muted)}
pre{background:var(--code);padding:8px;overflow-x:auto;font:12px/1.4 ui-monospace,monospace;margin:4px 0}
ins{background:var(--add);text-decoration:none;display:block}del{background:var(--del);text-decoration:none;display:block}
.fold{color:var(--muted);display:block}.same{color:var(--muted)}
.grid-wrap{overflow-x:auto}table.grid{border-collapse:collapse;font:10px ui-monospace,monospace}
.grid td,.grid th{border:1px solid #ccc;padding:1px 3px;text-align:center;min-width:28px}.grid th{background:#fafafa;color:var(--muted)}
.grid td.all{background:#eee}.note,.kind{color:var(--muted);font-size:.9em;margin:2px 0}
@media (max-width:800px){main{display:block;padding:0 8px}nav{position:static;max-height:none}pre{font-size:11px}}
)";

int run_trace(TraceOptions& options) {
  auto record = std::make_shared<transform::PassRecordInstrument>(
      [](const ir::IRModule& mod) { return ir::print(mod); });
  options.instruments.push_back(record);
  CompiledFile compiled = compile_kernel_file(options);
  const Kernel& kernel = compiled.kernel;
  std::vector<transform::PassRecordInstrument::Step> steps = record->steps();
  double total = 0;
  for (const auto& s : steps) total += s.milliseconds;

  std::string nav, body;
  for (size_t k = 0; k < steps.size(); ++k) {
    const auto& s = steps[k];
    std::string title = s.pass.empty() ? "input module" : s.pipeline + "/" + s.pass;
    nav +=
        fmt::format("<li><a href=\"#step-{}\">{}</a> <span class=\"ms\">{}</span></li>", k,
                    escape(title), s.pass.empty() ? "" : fmt::format("{:.3f} ms", s.milliseconds));
    int changed = 0;
    std::string diff = k == 0 ? std::string() : diff_html(steps[k - 1].ir, s.ir, &changed);
    body += fmt::format(
        "<section class=\"{}\" id=\"step-{}\" data-pass=\"{}\"><h2>{}. {} <span class=\"ms\">{}"
        "</span></h2>",
        s.pass.empty() ? "input" : "pass", k, escape(s.pass), k + 1, escape(title),
        s.pass.empty() ? "" : fmt::format("{:.3f} ms, {} changed lines", s.milliseconds, changed));
    if (k > 0)
      body +=
          "<details class=\"diff-block\" open><summary>diff against the previous step</summary>" +
          diff + "</details>";
    body += fmt::format("<details{}><summary>IR</summary><pre>{}</pre></details></section>",
                        k == 0 ? " open" : "", escape(s.ir));
  }
  std::string layouts;
  for (const auto& func : kernel.lowered().functions())
    for (const auto& [key, value] : func->attrs)
      if (key.rfind("tilec.layout.", 0) == 0)
        if (const auto* text = std::get_if<std::string>(&value))
          layouts += layout_html(func->name, *text);
  if (layouts.empty())
    layouts =
        "<p class=\"note\">No fragment layouts: this target keeps fragments as whole "
        "arrays per block (layouts are chosen by the SIMT lowering of GPU targets such as "
        "opencl and cuda).</p>";
  nav +=
      "<li><a href=\"#layouts\">fragment layouts</a></li><li><a href=\"#device\">device "
      "code</a></li><li><a href=\"#host\">host code</a></li>";
  std::string html = fmt::format(
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
      "content=\"width=device-width,initial-scale=1\"><title>tilec trace: {file}</title>"
      "<style>{style}</style></head><body><header><h1>tilec trace: {file}</h1><p class=\"meta\">"
      "backend {backend}, target {target}, execution backend {exec}; {passes} passes, {total:.3f} "
      "ms lowering, compile {compile:.1f} ms; tilec {version}</p><p class=\"meta\" "
      "id=\"summary\"></p></header><main><nav><ol>{nav}"
      "</ol></nav><article>{body}<section id=\"layouts\"><h2>Fragment layouts</h2>{layouts}"
      "</section><section id=\"device\"><h2>Device code</h2><pre>{device}</pre></section>"
      "<section id=\"host\"><h2>Host code</h2><pre>{host}</pre></section></article></main>"
      "<script>{script}</script></body></html>\n",
      fmt::arg("file", escape(options.file)), fmt::arg("style", kStyle),
      fmt::arg("script", kScript), fmt::arg("backend", escape(kernel.context().name())),
      fmt::arg("target", escape(kernel.context().target().str())),
      fmt::arg("exec", escape(kernel.execution_backend())),
      fmt::arg("passes", steps.empty() ? 0 : steps.size() - 1), fmt::arg("total", total),
      fmt::arg("compile", kernel.compile_ms()), fmt::arg("version", version()),
      fmt::arg("nav", nav), fmt::arg("body", body), fmt::arg("layouts", layouts),
      fmt::arg("device",
               escape(kernel.device_source().empty() ? "(none: the host code is the kernel)"
                                                     : kernel.device_source())),
      fmt::arg("host", escape(kernel.host_source().empty() ? "(none)" : kernel.host_source())));
  std::ofstream out(options.output, std::ios::binary);
  out << html;
  if (!out) throw EngineError(fmt::format("-o: cannot write '{}'", options.output));
  std::cerr << fmt::format("tilec: wrote {} ({} passes, {} KB)\n", options.output,
                           steps.empty() ? 0 : steps.size() - 1, html.size() / 1024);
  return kExitOk;
}

}  // namespace

TILEC_REGISTER_COMMAND(Command{
    "trace",
    [](CLI::App& sub) -> std::function<int()> {
      auto options = std::make_shared<TraceOptions>();
      add_compile_options(sub, *options);
      sub.add_option("-o,--output", options->output,
                     "the HTML page to write (self-contained: open it in any browser)")
          ->capture_default_str();
      return [options] { return run_trace(*options); };
    },
    "write an HTML page of a compilation: each pass's IR and diff, times, code, layouts"});

}  // namespace tilec::cli
