// Statements: assignments bind locals, loops and conditions type their parts.
#include <cstdio>

#include "sema/inferencer.h"

namespace simt::sema::detail {

void Inferencer::block(const std::vector<lang::StmtPtr>& body) {
  for (const auto& s : body) stmt(*s);
}

void Inferencer::stmt(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::Assign: {
      Type value = expr(*s.value);
      bool nonneg = info(*s.value).nonnegative;
      for (const auto& target : s.targets) {
        assign(*target, value, nonneg, info(*s.value).value_range);
        note_constant(*target, info(*s.value));
        note_dynamic_shared(*target, *s.value);
      }
      break;
    }
    case StmtKind::AnnAssign:
      if (s.targets[0]->kind != ExprKind::Name)
        error(s.targets[0]->span, "only plain variables can be annotated");
      type_expression(*s.annotation);
      if (s.value) {
        Type value = expr(*s.value);
        assign(*s.targets[0], value, info(*s.value).nonnegative, info(*s.value).value_range);
      } else {
        record_target_name(*s.targets[0]);
      }
      break;
    case StmtKind::AugAssign:
      aug_assign(s);
      break;
    case StmtKind::If: {
      truth(*s.test, "if");
      // A condition known at compile time: the branch it never takes binds no
      // types (infer_constants.cpp says why). One that reads a parameter may
      // become known if typing fails without it (`if neg_idx:` as Numba prunes).
      const std::optional<Constant>& known = info(*s.test).constant;
      const bool constant = known && known->type.is_scalar() && known->type.is_int_like();
      if (!constant) want_constant(*s.test, "the condition of an if", false);
      size_t outer = lower_bounds_.size();
      add_lower_bounds(*s.test, s.body);
      if (constant && known->int_value == 0) ++dead_depth_;
      block(s.body);
      if (constant && known->int_value == 0) --dead_depth_;
      lower_bounds_.resize(outer);
      if (constant && known->int_value != 0) ++dead_depth_;
      block(s.orelse);
      if (constant && known->int_value != 0) --dead_depth_;
      break;
    }
    case StmtKind::While:
      truth(*s.test, "while");
      ++loop_depth_;
      block(s.body);
      --loop_depth_;
      break;
    case StmtKind::For:
      for_loop(s);
      break;
    case StmtKind::Break:
    case StmtKind::Continue:
      if (loop_depth_ == 0)
        error(s.span, std::string("'") + (s.kind == StmtKind::Break ? "break" : "continue") +
                          "' outside loop");
      break;
    case StmtKind::Return:
      return_stmt(s);
      break;
    case StmtKind::Pass:
      break;
    case StmtKind::ExprStmt:
      // A tuple display here is evaluated item by item, for their effects
      // (the emitter's expr_stmt): items that are not values (a docstring, a
      // module) have none, as in Python.
      expr(*s.value);
      break;
    case StmtKind::Raise:
      raise_stmt(s);
      break;
    case StmtKind::Assert:
      truth(*s.test, "assert");
      if (s.value) {
        Type m = expr(*s.value);
        if (m.kind != TypeKind::String)
          error(s.value->span, "an assert message must be a string literal, not " + m.str());
      }
      break;
  }
}

void Inferencer::record_target_name(const Expr& target) {
  int index = local_index_.at(target.name);
  ExprInfo& i = out_.exprs[&target];
  i = ExprInfo{};
  i.type = out_.locals[index].type;
  i.local = index;
}

void Inferencer::note_dynamic_shared(const Expr& target, const Expr& value) {
  if (target.kind != ExprKind::Name) return;
  const ExprInfo& v = info(value);
  if (v.type.is_array() && v.type.space == Space::Shared && v.shape.size() == 1 && v.shape[0] == 0)
    dynamic_shared_names_.insert(target.name);
  else
    dynamic_shared_names_.erase(target.name);
}

void Inferencer::note_dynamic_shared_index(const Expr& base, const Expr& index, const Type& array) {
  if (!final_ || base.kind != ExprKind::Name || !dynamic_shared_names_.count(base.name)) return;
  const std::optional<int64_t> k = const_int(index);
  if (!k || *k < 0) return;
  // Element `k` needs the launch's dynamic bytes to hold k + 1 elements.
  const int64_t bytes = (*k + 1) * array.element_bytes();
  if (bytes <= out_.dynamic_shared_need) return;
  out_.dynamic_shared_need = bytes;
  out_.dynamic_shared_use = index.span;
}

void Inferencer::assign(const Expr& target, const Type& value, bool nonneg,
                        std::optional<ValueRange> range) {
  switch (target.kind) {
    case ExprKind::Name: {
      int index = local_index_.at(target.name);
      bind(index, value, target.span, nonneg, range);
      record_target_name(target);
      break;
    }
    case ExprKind::Tuple: {
      if (value.is_unknown()) {
        for (const auto& item : target.items) assign(*item, Type::unknown(), nonneg);
        break;
      }
      if (!value.is_tuple()) {
        error(target.span, "cannot unpack " + value.str() + " into " +
                               std::to_string(target.items.size()) + " variables");
        break;
      }
      if (value.items.size() != target.items.size()) {
        error(target.span, "cannot unpack a tuple of " + std::to_string(value.items.size()) +
                               " values into " + std::to_string(target.items.size()) +
                               " variables");
        break;
      }
      out_.exprs[&target].type = value;
      for (size_t i = 0; i < target.items.size(); ++i)
        assign(*target.items[i], value.items[i], nonneg, range);
      break;
    }
    case ExprKind::Subscript: {
      Type base = expr(*target.items[0]);
      Type element = expr(target);
      if (base.is_tuple()) {
        error(target.span, "a tuple cannot be assigned to: tuples are immutable");
        break;
      }
      check_store(target, base, element, value);
      break;
    }
    case ExprKind::Attribute: {
      Type base = expr(*target.items[0]);
      if (base.is_record()) {
        check_store(target, base, expr(target), value);  // a record's field
        break;
      }
      if (!base.is_unknown())
        error(target.span, "cannot assign to the attribute '" + target.name + "'");
      break;
    }
    default:
      error(target.span, "cannot assign to this expression");
      break;
  }
}

void Inferencer::aug_assign(const Stmt& s) {
  const Expr& target = *s.targets[0];
  const bool field = target.kind == ExprKind::Attribute;
  if (target.kind != ExprKind::Name && target.kind != ExprKind::Subscript && !field) {
    error(target.span, "augmented assignment needs a variable, an array element or a field");
    return;
  }
  Type current = expr(target);
  Type value = expr(*s.value);
  if (field && !info(*target.items[0]).type.is_record() && !current.is_unknown()) {
    error(target.span, "cannot assign to the attribute '" + target.name + "'");
    return;
  }
  if ((current.is_array() || current.is_record()) && target.kind != ExprKind::Name) {
    if (current.is_record())
      error(target.span, "a record takes no arithmetic: update its fields");
    else
      check_store(target, info(*target.items[0]).type, current, value);
    return;
  }
  ExprInfo op_info = binary(s.op, current, value, info(target), info(*s.value), s.span);
  out_.stmts[&s] = op_info;
  if (target.kind == ExprKind::Name) {
    int index = local_index_.at(target.name);
    bind(index, op_info.type, target.span, op_info.nonnegative, op_info.value_range);
  } else {
    Type base = info(*target.items[0]).type;
    if (base.is_tuple())
      error(target.span, "a tuple cannot be assigned to: tuples are immutable");
    else
      check_store(target, base, current, op_info.type);
  }
}

void Inferencer::for_loop(const Stmt& s) {
  const Expr& target = *s.targets[0];
  Type iter = expr(*s.value);
  if (iter.kind == TypeKind::Range && !iter.items.empty()) {
    // enumerate/zip of ranges: each iteration yields a tuple, unpacked as an assignment.
    assign(target, iter.range_item(), false);
  } else if (iter.kind == TypeKind::Range) {
    if (target.kind != ExprKind::Name) {
      error(target.span, "a range loop binds one variable");
    } else {
      Type index = Type::scalar_of(iter.scalar, iter.weak);
      bind(local_index_.at(target.name), index, target.span, range_nonnegative(*s.value),
           range_values(*s.value));
      record_target_name(target);
    }
  } else if (iter.is_array()) {
    // A counted loop over the first axis: elements, or views of the rows.
    assign(target, array_row(iter), false);
  } else if (iter.is_tuple()) {
    // Unrolled: the variable takes each item in turn, so it has their join.
    for (const auto& item : iter.items) assign(target, item, false);
    if (iter.items.empty()) assign(target, Type::unknown(), false);
  } else if (!iter.is_unknown()) {
    error(s.value->span,
          "a for loop iterates over range(...), an array, a tuple, or enumerate(...) or zip(...) "
          "of those, not " +
              iter.str());
  }
  ++loop_depth_;
  block(s.body);
  --loop_depth_;
}

bool Inferencer::range_nonnegative(const Expr& call) {
  if (call.kind != ExprKind::Call) return false;
  size_t n = call.items.size() - 1;
  if (n == 1) return true;
  if (!info(*call.items[1]).nonnegative) return false;
  if (n < 3) return true;
  // A step known >= 0 (gridsize(1)) keeps every value >= start; a negative one every
  // value > stop, so a stop >= -1 does too. With a step of either sign each value lies
  // between start and stop + 1: both >= 0 will do.
  const Expr& stop = *call.items[2];
  auto stop_constant = const_int(stop);
  bool stop_at_least_minus_one = info(stop).nonnegative || (stop_constant && *stop_constant >= -1);
  if (auto step = const_int(*call.items[3])) return *step > 0 || stop_at_least_minus_one;
  return info(*call.items[3]).nonnegative || stop_at_least_minus_one;
}

namespace {

// An exception argument as Python's repr writes it (str for the only argument).
std::string argument_text(const Constant& c, const Expr& e, bool only) {
  if (e.kind == ExprKind::String) return only ? e.str_value : "'" + e.str_value + "'";
  const Type& t = c.type;
  if (t.is_tuple()) return "(...)";
  if (is_bool(t.scalar)) return c.int_value ? "True" : "False";
  if (is_integer(t.scalar))
    return is_unsigned(t.scalar) ? std::to_string(static_cast<uint64_t>(c.int_value))
                                 : std::to_string(c.int_value);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", c.real);
  if (is_complex(t.scalar)) std::snprintf(buffer, sizeof buffer, "(%.17g%+.17gj)", c.real, c.imag);
  return buffer;
}

}  // namespace

void Inferencer::raise_stmt(const Stmt& s) {
  out_.raises = true;
  const Expr& value = *s.value;
  const Expr& cls = value.kind == ExprKind::Call ? *value.items[0] : value;
  out_.exprs[&value].type = Type::none();
  ExprInfo ci = cls.kind == ExprKind::Name ? name(cls) : typed(Type::unknown());
  out_.exprs[&cls] = ci;
  if (ci.type.is_unknown() && cls.kind == ExprKind::Name) return;  // reported by name()
  if (ci.type.kind != TypeKind::Function || !ci.type.name.starts_with("exception:") ||
      !ci.constant) {
    error(cls.span,
          "raise needs an exception class derived from Exception (ValueError, "
          "IndexError, a class of yours), written by its name");
    return;
  }
  if (value.kind == ExprKind::Call && !value.keywords.empty()) {
    error(value.keywords[0].span, "exceptions raised on the device take no keyword arguments");
    return;
  }
  // The message, as str() of the exception shows it: its one argument, or
  // the tuple of them. Arguments are constants: a thread has no strings.
  std::string message;
  size_t n = value.kind == ExprKind::Call ? value.items.size() - 1 : 0;
  for (size_t k = 1; k <= n; ++k) {
    const Expr& a = *value.items[k];
    Type t = expr(a);
    const ExprInfo& ai = info(a);
    if (t.is_unknown()) return;
    if (t.kind != TypeKind::String && !ai.constant) {
      error(a.span,
            "the arguments of an exception raised on the device must be constants (string "
            "literals and numbers known when the kernel compiles)");
      return;
    }
    message +=
        (k > 1 ? ", " : "") + argument_text(ai.constant ? *ai.constant : Constant{}, a, n == 1);
  }
  if (n > 1) message = "(" + message + ")";
  ExprInfo record;
  record.type = Type::string();
  record.constant = ci.constant;  // the class's key
  record.raised_class = ci.type.name.substr(10);
  record.raised_message = message;
  out_.stmts[&s] = record;
}

}  // namespace simt::sema::detail
