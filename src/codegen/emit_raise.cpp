// `raise` in kernels and device functions. A raising thread stops, as Numba's
// does: in debug mode its exception is first recorded in the launch's check
// record (the first thread's wins; the host raises it after the launch), and
// the kernel's thread then returns. A device function cannot end its caller's
// thread by itself, so one that may raise (sema::TypedFunction::raises) takes
// a status from its caller, `int* simt_raised`, sets it and returns; each call
// of it is followed by a test of the status, which leaves the caller the same
// way. Calls of functions that never raise are emitted as before.
#include "codegen/emitter_impl.h"

namespace simt::codegen::detail {

namespace {

constexpr const char* kStatusParam = "simt_raised";

}  // namespace

void Emitter::raise_stmt(const Stmt& s) {
  if (options_.debug) {
    const ExprInfo& r = fn_.at(s);
    int site = check_site(abi::CheckSite::Kind::Raise, s.span, r.raised_message);
    module_.check_sites[static_cast<size_t>(site)].exception_key = r.constant->int_value;
    line(check_failure(abi::CheckSite::Kind::Raise, site));
  }
  stop_thread();
}

void Emitter::stop_thread() {
  if (self_) line("*" + std::string(kStatusParam) + " = 1;");
  leave_if_raised("");
}

std::string Emitter::raise_status_param() const {
  if (!self_ || !fn_.raises) return "";
  return "int* " + std::string(kStatusParam);
}

std::string Emitter::raise_status(const Expr& call) {
  const ExprInfo& i = info(call);
  if (!i.function || !i.function->typed.raises) return "";
  if (self_) return kStatusParam;  // the caller's own status goes on
  std::string flag = "simt_raised" + std::to_string(temp_counter_++);
  line("int " + flag + " = 0;");
  return "&" + flag;
}

void Emitter::leave_if_raised(const std::string& status) {
  // `status` empty: the thread leaves here unconditionally (a raise).
  int opened = 0;
  if (!status.empty()) {
    // A device function tests its own status; a kernel the flag it passed.
    line("if (" + (self_ ? "*" + status : status.substr(1)) + ") {");
    ++indent_;
    ++opened;
  }
  if (!self_) {
    const Stmt leave(StmtKind::Return, fn_.parsed->def.span);
    return_stmt(leave);
  } else if (fn_.return_type.kind == TypeKind::None) {
    line("return;");
  } else if (fn_.return_type.is_scalar() && !sema::is_complex(fn_.return_type.scalar)) {
    line("return 0;");  // never read: the caller leaves too
  } else {
    // The caller never reads a result after a raise; C still wants one.
    std::string result = "simt_ret" + std::to_string(temp_counter_++);
    line(result_ctype(fn_.return_type) + " " + result + " = {0};");
    line("return " + result + ";");
  }
  for (; opened > 0; --opened) {
    --indent_;
    line("}");
  }
}

}  // namespace simt::codegen::detail
