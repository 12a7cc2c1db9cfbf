// Calls of foreign device functions (Numba's declare_device): typed by the
// declared signature alone, since their bodies are C the compiler never reads.
#include <algorithm>

#include "sema/inferencer.h"

namespace simt::sema::detail {

ExprInfo Inferencer::foreign_call(const Expr& e, const Type& callee) {
  std::string id = callee.name.substr(kForeignFunctionPrefix.size());
  auto g = globals_.find(id);
  if (g == globals_.end() || g->second.kind != GlobalValue::Kind::Foreign || !g->second.foreign)
    return typed(error(e.items[0]->span, "'" + id + "' is not a declared device function"));
  const std::shared_ptr<const ForeignFunction>& fn = g->second.foreign;
  const std::string shown = fn->name + "()";
  if (!e.keywords.empty())
    return typed(error(e.keywords[0].span,
                       shown + " is declared with declare_device and takes positional arguments "
                               "only"));
  const size_t n = fn->params.size();
  if (e.items.size() - 1 != n)
    return typed(error(e.span, shown + " takes " + std::to_string(n) + " argument" +
                                   (n == 1 ? "" : "s") + " (" + std::to_string(e.items.size() - 1) +
                                   " given)"));
  for (size_t k = 0; k < n; ++k) {
    const Expr& arg = *e.items[k + 1];
    const Type& t = info(arg).type;
    if (t.contains_unknown()) return typed(Type::unknown());
    const ForeignFunction::Param& p = fn->params[k];
    const std::string which = "argument " + std::to_string(k + 1) + " of " + shown;
    if (p.pointer) {
      if (!t.is_array() || t.record || t.packed || t.scalar != p.scalar)
        return typed(error(arg.span, which + " is a pointer to " +
                                         std::string(scalar_name(p.scalar)) +
                                         ": pass an array of that dtype (its data pointer is "
                                         "passed), not " +
                                         t.str()));
      if (t.readonly)
        return typed(error(arg.span, which + " points at a read-only array, which the foreign "
                                             "function could write"));
      continue;
    }
    if (!t.is_scalar() || (is_complex(t.scalar) && !is_complex(p.scalar)))
      return typed(error(arg.span,
                         which + " is " + std::string(scalar_name(p.scalar)) + ", not " + t.str()));
  }
  ExprInfo i = typed(fn->result);
  i.foreign = fn.get();
  if (final_ && std::find(out_.foreign.begin(), out_.foreign.end(), fn) == out_.foreign.end())
    out_.foreign.push_back(fn);
  return i;
}

}  // namespace simt::sema::detail
