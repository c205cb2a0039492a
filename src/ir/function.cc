#include "tilec/ir/function.h"

#include <algorithm>
#include <unordered_set>

namespace tilec::ir {

PrimFunc make_prim_func(std::string name, std::vector<Param> params, Stmt body, AttrMap attrs,
                        Span span) {
  auto node = std::make_shared<PrimFuncNode>();
  node->name = std::move(name);
  node->params = std::move(params);
  node->body = std::move(body);
  node->attrs = std::move(attrs);
  node->span = span;
  if (!node->attrs.count("global_symbol")) node->attrs["global_symbol"] = node->name;
  return node;
}

PrimFunc with_body(const PrimFunc& func, Stmt body) {
  auto node = std::make_shared<PrimFuncNode>(*func);
  node->body = std::move(body);
  return node;
}

PrimFunc with_attr(const PrimFunc& func, const std::string& key, AttrValue value) {
  auto node = std::make_shared<PrimFuncNode>(*func);
  node->attrs[key] = std::move(value);
  return node;
}

std::vector<size_t> output_indices(const PrimFunc& func) {
  std::vector<size_t> indices;
  auto it = func->attrs.find(kOutputIndicesAttr);
  if (it == func->attrs.end()) return indices;
  const auto* text = std::get_if<std::string>(&it->second);
  if (!text) throw IRError(std::string("attribute ") + kOutputIndicesAttr + " must be a string");
  size_t start = 0;
  while (start < text->size()) {
    size_t end = text->find(',', start);
    if (end == std::string::npos) end = text->size();
    size_t index = std::stoul(text->substr(start, end - start));
    if (index >= func->params.size() || !func->params[index].is_buffer())
      throw IRError(std::string("attribute ") + kOutputIndicesAttr + " of '" + func->name +
                    "' names parameter " + std::to_string(index) + ", which is not a tensor");
    indices.push_back(index);
    start = end + 1;
  }
  return indices;
}

std::vector<Var> symbolic_shape_vars(const PrimFunc& func) {
  std::vector<Var> vars;
  std::unordered_set<const ExprNode*> seen;
  for (const auto& p : func->params) {
    if (!p.is_buffer()) continue;
    for (const auto& dim : p.buffer->shape) {
      if (dim.as<VarNode>() && seen.insert(dim.get()).second) {
        vars.emplace_back(std::static_pointer_cast<const VarNode>(dim.node()));
      }
    }
  }
  return vars;
}

IRModule::IRModule(std::vector<PrimFunc> functions, AttrMap attrs) : attrs_(std::move(attrs)) {
  for (auto& f : functions) {
    if (contains(f->name)) throw IRError("duplicate function '" + f->name + "' in module");
    functions_.push_back(std::move(f));
  }
}

bool IRModule::contains(const std::string& name) const {
  return std::any_of(functions_.begin(), functions_.end(),
                     [&](const PrimFunc& f) { return f->name == name; });
}

const PrimFunc& IRModule::lookup(const std::string& name) const {
  for (const auto& f : functions_)
    if (f->name == name) return f;
  std::string names;
  for (const auto& f : functions_) names += (names.empty() ? "" : ", ") + f->name;
  throw IRError("no function '" + name + "' in module; it has: " +
                (names.empty() ? "(none)" : names));
}

IRModule IRModule::with_function(PrimFunc func) const {
  IRModule out = *this;
  for (auto& f : out.functions_) {
    if (f->name == func->name) {
      f = std::move(func);
      return out;
    }
  }
  out.functions_.push_back(std::move(func));
  return out;
}

IRModule IRModule::without_function(const std::string& name) const {
  IRModule out = *this;
  std::erase_if(out.functions_, [&](const PrimFunc& f) { return f->name == name; });
  return out;
}

IRModule IRModule::with_attr(const std::string& key, AttrValue value) const {
  IRModule out = *this;
  out.attrs_[key] = std::move(value);
  return out;
}

const AttrValue* IRModule::attr(const std::string& key) const {
  auto it = attrs_.find(key);
  return it == attrs_.end() ? nullptr : &it->second;
}

}  // namespace tilec::ir
