#include "lang/ast.h"

#include <charconv>

namespace simt::lang {

const char* op_text(Op op) {
  switch (op) {
    case Op::Add:
      return "+";
    case Op::Sub:
      return "-";
    case Op::Mul:
      return "*";
    case Op::Div:
      return "/";
    case Op::FloorDiv:
      return "//";
    case Op::Mod:
      return "%";
    case Op::Pow:
      return "**";
    case Op::MatMul:
      return "@";
    case Op::LShift:
      return "<<";
    case Op::RShift:
      return ">>";
    case Op::BitAnd:
      return "&";
    case Op::BitOr:
      return "|";
    case Op::BitXor:
      return "^";
    case Op::Invert:
      return "~";
    case Op::Not:
      return "not";
    case Op::And:
      return "and";
    case Op::Or:
      return "or";
    case Op::Eq:
      return "==";
    case Op::NotEq:
      return "!=";
    case Op::Lt:
      return "<";
    case Op::LtE:
      return "<=";
    case Op::Gt:
      return ">";
    case Op::GtE:
      return ">=";
    case Op::Is:
      return "is";
    case Op::IsNot:
      return "is not";
    case Op::In:
      return "in";
    case Op::NotIn:
      return "not in";
  }
  return "?";
}

namespace {

// Shortest text that reads back as the same double.
std::string format_double(double value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : "?";
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string dump_ptr(const ExprPtr& e) { return e ? dump(*e) : "_"; }

std::string dump_items(const std::vector<ExprPtr>& items, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < items.size(); ++i) out += " " + dump_ptr(items[i]);
  return out;
}

std::string dump_block(const char* label, const std::vector<StmtPtr>& body) {
  std::string out = std::string("(") + label;
  for (const StmtPtr& s : body) out += " " + dump(*s);
  return out + ")";
}

const char* kind_name(StmtKind kind) {
  switch (kind) {
    case StmtKind::Assign:
      return "Assign";
    case StmtKind::AugAssign:
      return "AugAssign";
    case StmtKind::AnnAssign:
      return "AnnAssign";
    case StmtKind::If:
      return "If";
    case StmtKind::While:
      return "While";
    case StmtKind::For:
      return "For";
    case StmtKind::Break:
      return "Break";
    case StmtKind::Continue:
      return "Continue";
    case StmtKind::Return:
      return "Return";
    case StmtKind::Pass:
      return "Pass";
    case StmtKind::ExprStmt:
      return "Expr";
    case StmtKind::Assert:
      return "Assert";
    case StmtKind::Raise:
      return "Raise";
  }
  return "?";
}

}  // namespace

std::string dump(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name:
      return "(Name " + e.name + ")";
    case ExprKind::Int:
      return "(Int " + std::to_string(e.int_value) + ")";
    case ExprKind::Float:
      return "(Float " + format_double(e.float_value) + ")";
    case ExprKind::Imaginary:
      return "(Imag " + format_double(e.float_value) + ")";
    case ExprKind::Bool:
      return e.bool_value ? "(Bool True)" : "(Bool False)";
    case ExprKind::None:
      return "(None)";
    case ExprKind::String:
      return "(Str " + quote(e.str_value) + ")";
    case ExprKind::Tuple:
      return "(Tuple" + dump_items(e.items) + ")";
    case ExprKind::Unary:
      return std::string("(Unary ") + op_text(e.op) + dump_items(e.items) + ")";
    case ExprKind::Binary:
      return std::string("(Binary ") + op_text(e.op) + dump_items(e.items) + ")";
    case ExprKind::Compare: {
      std::string out = "(Compare " + dump_ptr(e.items.at(0));
      for (size_t i = 0; i < e.ops.size() && i + 1 < e.items.size(); ++i)
        out += std::string(" ") + op_text(e.ops[i]) + " " + dump_ptr(e.items[i + 1]);
      return out + ")";
    }
    case ExprKind::BoolOp:
      return std::string("(BoolOp ") + op_text(e.op) + dump_items(e.items) + ")";
    case ExprKind::IfExp:
      return "(IfExp" + dump_items(e.items) + ")";
    case ExprKind::Call: {
      std::string out = "(Call" + dump_items(e.items);
      for (const Keyword& k : e.keywords) out += " (kw " + k.name + " " + dump_ptr(k.value) + ")";
      return out + ")";
    }
    case ExprKind::Attribute:
      return "(Attr " + dump_ptr(e.items.at(0)) + " " + e.name + ")";
    case ExprKind::Subscript:
      return "(Subscript" + dump_items(e.items) + ")";
    case ExprKind::Slice:
      return "(Slice" + dump_items(e.items) + ")";
  }
  return "(?)";
}

std::string dump(const Stmt& s) {
  std::string out = std::string("(") + kind_name(s.kind);
  switch (s.kind) {
    case StmtKind::Assign:
      out += dump_items(s.targets) + " " + dump_ptr(s.value);
      break;
    case StmtKind::AugAssign:
      out +=
          std::string(" ") + op_text(s.op) + "=" + dump_items(s.targets) + " " + dump_ptr(s.value);
      break;
    case StmtKind::AnnAssign:
      out += dump_items(s.targets) + " " + dump_ptr(s.annotation) + " " + dump_ptr(s.value);
      break;
    case StmtKind::If:
      out += " " + dump_ptr(s.test) + " " + dump_block("body", s.body);
      if (!s.orelse.empty()) out += " " + dump_block("else", s.orelse);
      break;
    case StmtKind::While:
      out += " " + dump_ptr(s.test) + " " + dump_block("body", s.body);
      break;
    case StmtKind::For:
      out += dump_items(s.targets) + " " + dump_ptr(s.value) + " " + dump_block("body", s.body);
      break;
    case StmtKind::Return:
    case StmtKind::ExprStmt:
    case StmtKind::Raise:
      if (s.value) out += " " + dump(*s.value);
      break;
    case StmtKind::Assert:
      out += " " + dump_ptr(s.test);
      if (s.value) out += " " + dump(*s.value);
      break;
    case StmtKind::Break:
    case StmtKind::Continue:
    case StmtKind::Pass:
      break;
  }
  return out + ")";
}

std::string dump(const FunctionDef& def) {
  std::string out = "(def " + def.name + " (params";
  for (const Param& p : def.params) {
    out += " (" + p.name;
    if (p.annotation) out += " : " + dump(*p.annotation);
    if (p.default_value) out += " = " + dump(*p.default_value);
    out += ")";
  }
  out += ")";
  if (def.returns) out += " -> " + dump(*def.returns);
  if (!def.docstring.empty()) out += " (doc " + quote(def.docstring) + ")";
  for (const StmtPtr& s : def.body) out += " " + dump(*s);
  return out + ")";
}

}  // namespace simt::lang
