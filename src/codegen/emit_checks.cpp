// Checked kernels (EmitOptions::debug, ::boundscheck): every array index
// checked against its axis, `assert` statements evaluated (and, in debug,
// divisors tested for zero unless fastmath), the first failure
// written to the launch's check record (abi/check_record.h), which the host
// reads after the launch. A failed access uses index 0 instead, so it never
// reaches memory outside its array; loops stop once a check of their thread
// failed, so a loop walking off an array ends rather than reading element 0
// forever. That test is a plain load, not a volatile one: the failure path is
// an out-of-line call, after which the compiler reloads it (a thread sees
// its own failure at once), and a loop without checks may hoist it out (a
// volatile load per pass made a GPU loop several times slower).
#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

namespace {

// The record's helpers, one text per dialect: $Q the function prefix ($C a
// cold function's), $G the record's address space, $CAS the dialect's
// compare-and-swap of the status.
constexpr const char* kCheckHelpers =
    R"($Cvoid simt_check_fail($Gsimt_i64* r, unsigned int kind, simt_i64 site,
    simt_i64 index, simt_i64 extent, simt_i64 axis, simt_i64 tx, simt_i64 ty, simt_i64 tz,
    simt_i64 bx, simt_i64 by, simt_i64 bz) {
  if ($CAS != 0u) return;
  r[$SITE] = site;
  r[$INDEX] = index;
  r[$EXTENT] = extent;
  r[$AXIS] = axis;
  r[$THREAD] = tx;
  r[$THREAD + 1] = ty;
  r[$THREAD + 2] = tz;
  r[$BLOCK] = bx;
  r[$BLOCK + 1] = by;
  r[$BLOCK + 2] = bz;
}
$Qsimt_i64 simt_check_index(simt_i64 i, simt_i64 n, $Gsimt_i64* r, simt_i64 site, simt_i64 axis,
    simt_i64 tx, simt_i64 ty, simt_i64 tz, simt_i64 bx, simt_i64 by, simt_i64 bz) {
  if (i >= 0 ? i < n : i >= -n) return i < 0 ? i + n : i;
  simt_check_fail(r, 1u, site, i, n, axis, tx, ty, tz, bx, by, bz);
  return 0;
}
$Qsimt_i64 simt_check_tuple_index(simt_i64 i, simt_i64 n, $Gsimt_i64* r, simt_i64 site,
    simt_i64 tx, simt_i64 ty, simt_i64 tz, simt_i64 bx, simt_i64 by, simt_i64 bz) {
  if (i >= 0 ? i < n : i >= -n) return i < 0 ? i + n : i;
  simt_check_fail(r, $TUPLEu, site, i, n, 0, tx, ty, tz, bx, by, bz);
  return 0;
}
$Qint simt_check_failed($Gsimt_i64* r) { return r[0] != 0; }
)";

bool may_wait_stmt(const sema::TypedFunction& f, const Stmt& s);

// Whether running `e` may wait for other threads: a barrier or warp
// operation, here or in a device function it calls.
bool may_wait(const sema::TypedFunction& f, const Expr& e) {
  if (e.kind == ExprKind::Call) {
    auto found = f.exprs.find(&e);
    if (found != f.exprs.end()) {
      const ExprInfo& i = found->second;
      if (i.intrinsic && sema::is_collective(i.intrinsic->rule)) return true;
      if (i.function) {
        const sema::TypedFunction& callee = i.function->typed;
        for (const auto& s : callee.parsed->def.body)
          if (may_wait_stmt(callee, *s)) return true;
      }
    }
  }
  for (const auto& item : e.items)
    if (item && may_wait(f, *item)) return true;
  for (const auto& kw : e.keywords)
    if (may_wait(f, *kw.value)) return true;
  return false;
}

bool may_wait_stmt(const sema::TypedFunction& f, const Stmt& s) {
  if (s.test && may_wait(f, *s.test)) return true;
  if (s.value && may_wait(f, *s.value)) return true;
  for (const auto& t : s.targets)
    if (may_wait(f, *t)) return true;
  for (const auto& b : s.body)
    if (may_wait_stmt(f, *b)) return true;
  for (const auto& b : s.orelse)
    if (may_wait_stmt(f, *b)) return true;
  return false;
}

}  // namespace

bool Emitter::checked() const { return options_.debug || options_.boundscheck; }

std::string Emitter::check_helpers() {
  using namespace abi::check_record;
  std::string global(d_.global_space);
  std::string cas =
      fill_pattern(d_.atomic_cas32, {{"%S", global}, {"%p", "r"}, {"%e", "0u"}, {"%d", "kind"}});
  std::string code = kCheckHelpers;
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t at = code.find(from); at != std::string::npos; at = code.find(from, at + to.size()))
      code.replace(at, from.size(), to);
  };
  replace_all("$CAS", cas);
  replace_all("$Q", std::string(d_.function_prefix));
  replace_all("$C", std::string(d_.cold_function_prefix));
  replace_all("$G", global);
  replace_all("$TUPLE", std::to_string(static_cast<int>(abi::CheckSite::Kind::TupleIndex)));
  replace_all("$SITE", std::to_string(kSite));
  replace_all("$INDEX", std::to_string(kIndex));
  replace_all("$EXTENT", std::to_string(kExtent));
  replace_all("$AXIS", std::to_string(kAxis));
  replace_all("$THREAD", std::to_string(kThread));
  replace_all("$BLOCK", std::to_string(kBlock));
  helpers_.define_once("simt_check_index", code);
  return "simt_check_index";
}

int Emitter::check_site(abi::CheckSite::Kind kind, const lang::Span& span, std::string what) {
  abi::CheckSite site;
  site.kind = kind;
  site.what = std::move(what);
  const uint32_t line = span.line;
  site.where.file = fn_.source->filename();
  site.where.line = static_cast<int>(line);
  std::string_view text = fn_.source->line_text(line);
  size_t first = text.find_first_not_of(" \t");
  site.where.text = first == std::string_view::npos ? "" : std::string(text.substr(first));
  site.where.column = static_cast<int>(span.col);
  module_.check_sites.push_back(std::move(site));
  return static_cast<int>(module_.check_sites.size() - 1);
}

std::string Emitter::source_text(const lang::Span& span) const {
  std::string_view text = fn_.source->line_text(span.line);
  if (span.col == 0 || span.col > text.size()) return "?";
  size_t end = span.end_line == span.line ? span.end_col - 1 : text.size();
  if (end < span.col) return "?";
  return std::string(text.substr(span.col - 1, end - (span.col - 1)));
}

std::string Emitter::thread_and_block() {
  std::string out;
  for (IndexObject object : {IndexObject::ThreadIdx, IndexObject::BlockIdx})
    for (int c = 0; c < 3; ++c) out += ", " + index_value(object, c);
  return out;
}

std::string Emitter::index_into(const std::string& index, bool nonnegative, const std::string& a,
                                size_t axis, const Expr& array) {
  std::string extent = a + ".shape[" + std::to_string(axis) + "]";
  if (!checked()) {
    if (d_.id == abi::Language::Cpp && info(array).type.space == sema::Space::Local) {
      // On the CPU local arrays lie among the frames of the worker's stack
      // (or in the block's heap scratch): an overrun is a contained
      // DeviceError, never a write there. Shared arrays need no check:
      // guard pages bound them (backends/cpu/shared_arena.h).
      return helpers_.use(Helper::ContainIndex, Scalar::Int64) + "(" + index + ", " + extent + ")";
    }
    if (nonnegative) return index;
    return helpers_.use(Helper::WrapIndex, Scalar::Int64) + "(" + index + ", " + extent + ")";
  }
  int site = check_site(abi::CheckSite::Kind::Index, array.span, source_text(array.span));
  return check_helpers() + "(" + index + ", " + extent + ", simt_checks, " + std::to_string(site) +
         ", " + std::to_string(axis) + thread_and_block() + ")";
}

std::string Emitter::tuple_index(const std::string& index, size_t size, const Expr& tuple) {
  const std::string n = std::to_string(size);
  if (!checked())
    return helpers_.use(Helper::WrapIndex, Scalar::Int64) + "(" + index + ", " + n + ")";
  check_helpers();
  int site = check_site(abi::CheckSite::Kind::TupleIndex, tuple.span, source_text(tuple.span));
  return "simt_check_tuple_index(" + index + ", " + n + ", simt_checks, " + std::to_string(site) +
         thread_and_block() + ")";
}

void Emitter::assert_stmt(const Stmt& s) {
  if (!options_.debug) return;
  prepare(*s.test);
  std::string message = s.value ? s.value->str_value : "";
  int site = check_site(abi::CheckSite::Kind::Assert, s.test->span, message);
  line("if (!(" + truth(*s.test) + ")) " + check_failure(abi::CheckSite::Kind::Assert, site));
}

std::string Emitter::check_failure(abi::CheckSite::Kind kind, int site, const std::string& index) {
  check_helpers();
  return "simt_check_fail(simt_checks, " + std::to_string(static_cast<int>(kind)) + "u, " +
         std::to_string(site) + ", " + index + ", 0, 0" + thread_and_block() + ");";
}

bool Emitter::checked_division(const Expr& e) const {
  if (!options_.debug || options_.fastmath || e.kind != ExprKind::Binary) return false;
  if (e.op != Op::Div && e.op != Op::FloorDiv && e.op != Op::Mod) return false;
  auto i = fn_.exprs.find(&e);
  if (i == fn_.exprs.end() || i->second.constant || !i->second.operand.is_scalar()) return false;
  if (sema::is_complex(i->second.operand.scalar)) return false;
  auto divisor = fn_.exprs.find(e.items[1].get());
  if (divisor == fn_.exprs.end()) return false;
  const auto& c = divisor->second.constant;
  // A constant divisor other than zero never fails.
  return !(c && c->type.is_scalar() && !sema::is_complex(c->type.scalar) &&
           (sema::is_float(c->type.scalar) ? c->real != 0.0 : c->int_value != 0));
}

void Emitter::hoist_divisor(const Expr& e) {
  const Expr& rhs = *e.items[1];
  const ExprInfo& d = info(rhs);
  const Scalar s = sema::concrete(info(e).operand);
  std::string tmp = "simt_divisor" + std::to_string(temp_counter_++);
  line(std::string(d_.value_type(sema::concrete(d.type))) + " " + tmp + " = " + expr(rhs) + ";");
  hoisted_[&rhs] = {tmp};
  hoisted_[&e] = {};  // prepared: the division itself stays in its expression
  // Python's words for each operator and kind of number.
  const bool real = sema::is_float(s);
  std::string message =
      e.op == Op::Div ? "division by zero"
      : real ? (e.op == Op::FloorDiv ? "float floor division by zero" : "float modulo by zero")
             : "integer division or modulo by zero";
  int site = check_site(abi::CheckSite::Kind::ZeroDivision, e.span, message);
  line("if (" + convert(tmp, d.type, Type::scalar_of(s)) + " == 0) {");
  ++indent_;
  line(check_failure(abi::CheckSite::Kind::ZeroDivision, site));
  if (self_)
    line(tmp + " = 1;");
  else
    leave_if_raised("");
  --indent_;
  line("}");
}

void Emitter::stop_loop_after_failure(const std::vector<lang::StmtPtr>& body) {
  if (!checked()) return;
  // A thread leaving a loop whose body waits for the others would leave
  // them waiting: such loops run on.
  for (const auto& s : body)
    if (may_wait_stmt(fn_, *s)) return;
  check_helpers();
  line("if (simt_check_failed(simt_checks)) break;");
}

void Emitter::add_check_record(std::vector<abi::Param>& slots, std::vector<std::string>& params) {
  abi::Param slot;
  slot.role = abi::Param::Role::CheckRecord;
  slot.argument = -1;
  slot.c_type = std::string(d_.global_space) + "simt_i64*";
  slots.push_back(slot);
  if (d_.array_offset_type.empty()) {
    params.push_back(slot.c_type + " simt_checks");
    return;
  }
  // A buffer and a byte offset, as an array's data (abi::Param::c_params).
  params.push_back(slot.c_type + " simt_checks_data");
  params.push_back(std::string(d_.array_offset_type) + " simt_checks_offset");
  prologue_ += "  " + slot.c_type + " simt_checks = (" + slot.c_type + ")((" +
               std::string(d_.global_space) + "char*)simt_checks_data + simt_checks_offset);\n";
}

std::string Emitter::check_record_param() const {
  return std::string(d_.global_space) + "simt_i64* simt_checks";
}

}  // namespace simt::codegen::detail
