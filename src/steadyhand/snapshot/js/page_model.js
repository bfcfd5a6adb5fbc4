(() => {
  var __getOwnPropNames = Object.getOwnPropertyNames;
  var __esm = (fn, res, err) => function() {
    if (err) throw err[0];
    try {
      return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
    } catch (e) {
      throw err = [e], e;
    }
  };
  var __commonJS = (cb, mod) => function() {
    try {
      return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
    } catch (e) {
      throw mod = 0, e;
    }
  };

  // node_modules/dom-accessibility-api/dist/polyfills/array.from.mjs
  function isCallable(fn) {
    return typeof fn == "function" || toStr.call(fn) === "[object Function]";
  }
  function toInteger(value) {
    var number = Number(value);
    return isNaN(number) ? 0 : number === 0 || !isFinite(number) ? number : (number > 0 ? 1 : -1) * Math.floor(Math.abs(number));
  }
  function toLength(value) {
    var len = toInteger(value);
    return Math.min(Math.max(len, 0), maxSafeInteger);
  }
  function arrayFrom(arrayLike, mapFn) {
    var C = Array, items = Object(arrayLike);
    if (arrayLike == null)
      throw new TypeError("Array.from requires an array-like object - not null or undefined");
    if (typeof mapFn < "u" && !isCallable(mapFn))
      throw new TypeError("Array.from: when provided, the second argument must be a function");
    for (var len = toLength(items.length), A = isCallable(C) ? Object(new C(len)) : new Array(len), k = 0, kValue; k < len; )
      kValue = items[k], mapFn ? A[k] = mapFn(kValue, k) : A[k] = kValue, k += 1;
    return A.length = len, A;
  }
  var toStr, maxSafeInteger, init_array_from = __esm({
    "node_modules/dom-accessibility-api/dist/polyfills/array.from.mjs"() {
      toStr = Object.prototype.toString;
      maxSafeInteger = Math.pow(2, 53) - 1;
    }
  });

  // node_modules/dom-accessibility-api/dist/polyfills/SetLike.mjs
  function _typeof(o) {
    "@babel/helpers - typeof";
    return _typeof = typeof Symbol == "function" && typeof Symbol.iterator == "symbol" ? function(o2) {
      return typeof o2;
    } : function(o2) {
      return o2 && typeof Symbol == "function" && o2.constructor === Symbol && o2 !== Symbol.prototype ? "symbol" : typeof o2;
    }, _typeof(o);
  }
  function _classCallCheck(instance, Constructor) {
    if (!(instance instanceof Constructor))
      throw new TypeError("Cannot call a class as a function");
  }
  function _defineProperties(target, props) {
    for (var i = 0; i < props.length; i++) {
      var descriptor = props[i];
      descriptor.enumerable = descriptor.enumerable || !1, descriptor.configurable = !0, "value" in descriptor && (descriptor.writable = !0), Object.defineProperty(target, _toPropertyKey(descriptor.key), descriptor);
    }
  }
  function _createClass(Constructor, protoProps, staticProps) {
    return protoProps && _defineProperties(Constructor.prototype, protoProps), staticProps && _defineProperties(Constructor, staticProps), Object.defineProperty(Constructor, "prototype", { writable: !1 }), Constructor;
  }
  function _defineProperty(obj, key, value) {
    return key = _toPropertyKey(key), key in obj ? Object.defineProperty(obj, key, { value, enumerable: !0, configurable: !0, writable: !0 }) : obj[key] = value, obj;
  }
  function _toPropertyKey(t) {
    var i = _toPrimitive(t, "string");
    return _typeof(i) == "symbol" ? i : i + "";
  }
  function _toPrimitive(t, r) {
    if (_typeof(t) != "object" || !t) return t;
    var e = t[Symbol.toPrimitive];
    if (e !== void 0) {
      var i = e.call(t, r || "default");
      if (_typeof(i) != "object") return i;
      throw new TypeError("@@toPrimitive must return a primitive value.");
    }
    return (r === "string" ? String : Number)(t);
  }
  var SetLike, SetLike_default, init_SetLike = __esm({
    "node_modules/dom-accessibility-api/dist/polyfills/SetLike.mjs"() {
      SetLike = /* @__PURE__ */ (function() {
        function SetLike2() {
          var items = arguments.length > 0 && arguments[0] !== void 0 ? arguments[0] : [];
          _classCallCheck(this, SetLike2), _defineProperty(this, "items", void 0), this.items = items;
        }
        return _createClass(SetLike2, [{
          key: "add",
          value: function(value) {
            return this.has(value) === !1 && this.items.push(value), this;
          }
        }, {
          key: "clear",
          value: function() {
            this.items = [];
          }
        }, {
          key: "delete",
          value: function(value) {
            var previousLength = this.items.length;
            return this.items = this.items.filter(function(item) {
              return item !== value;
            }), previousLength !== this.items.length;
          }
        }, {
          key: "forEach",
          value: function(callbackfn) {
            var _this = this;
            this.items.forEach(function(item) {
              callbackfn(item, item, _this);
            });
          }
        }, {
          key: "has",
          value: function(value) {
            return this.items.indexOf(value) !== -1;
          }
        }, {
          key: "size",
          get: function() {
            return this.items.length;
          }
        }]);
      })(), SetLike_default = typeof Set > "u" ? Set : SetLike;
    }
  });

  // node_modules/dom-accessibility-api/dist/getRole.mjs
  function getLocalName(element) {
    var _element$localName;
    return (
      // eslint-disable-next-line no-restricted-properties -- actual guard for environments without localName
      (_element$localName = element.localName) !== null && _element$localName !== void 0 ? _element$localName : (
        // eslint-disable-next-line no-restricted-properties -- required for the fallback
        element.tagName.toLowerCase()
      )
    );
  }
  function hasGlobalAriaAttributes(element, role) {
    return [
      "aria-atomic",
      "aria-busy",
      "aria-controls",
      "aria-current",
      "aria-description",
      "aria-describedby",
      "aria-details",
      // "disabled",
      "aria-dropeffect",
      // "errormessage",
      "aria-flowto",
      "aria-grabbed",
      // "haspopup",
      "aria-hidden",
      // "invalid",
      "aria-keyshortcuts",
      "aria-label",
      "aria-labelledby",
      "aria-live",
      "aria-owns",
      "aria-relevant",
      "aria-roledescription"
    ].some(function(attributeName) {
      var _prohibitedAttributes;
      return element.hasAttribute(attributeName) && !((_prohibitedAttributes = prohibitedAttributes[role]) !== null && _prohibitedAttributes !== void 0 && _prohibitedAttributes.has(attributeName));
    });
  }
  function ignorePresentationalRole(element, implicitRole) {
    return hasGlobalAriaAttributes(element, implicitRole);
  }
  function getRole(element) {
    var explicitRole = getExplicitRole(element);
    if (explicitRole === null || presentationRoles.indexOf(explicitRole) !== -1) {
      var implicitRole = getImplicitRole(element);
      if (presentationRoles.indexOf(explicitRole || "") === -1 || ignorePresentationalRole(element, implicitRole || ""))
        return implicitRole;
    }
    return explicitRole;
  }
  function getImplicitRole(element) {
    var mappedByTag = localNameToRoleMappings[getLocalName(element)];
    if (mappedByTag !== void 0)
      return mappedByTag;
    switch (getLocalName(element)) {
      case "a":
      case "area":
      case "link":
        if (element.hasAttribute("href"))
          return "link";
        break;
      case "img":
        return element.getAttribute("alt") === "" && !ignorePresentationalRole(element, "img") ? "presentation" : "img";
      case "input": {
        var _ref = element, type = _ref.type;
        switch (type) {
          case "button":
          case "image":
          case "reset":
          case "submit":
            return "button";
          case "checkbox":
          case "radio":
            return type;
          case "range":
            return "slider";
          case "email":
          case "tel":
          case "text":
          case "url":
            return element.hasAttribute("list") ? "combobox" : "textbox";
          case "search":
            return element.hasAttribute("list") ? "combobox" : "searchbox";
          case "number":
            return "spinbutton";
          default:
            return null;
        }
      }
      case "select":
        return element.hasAttribute("multiple") || element.size > 1 ? "listbox" : "combobox";
    }
    return null;
  }
  function getExplicitRole(element) {
    var role = element.getAttribute("role");
    if (role !== null) {
      var explicitRole = role.trim().split(" ")[0];
      if (explicitRole.length > 0)
        return explicitRole;
    }
    return null;
  }
  var localNameToRoleMappings, prohibitedAttributes, init_getRole = __esm({
    "node_modules/dom-accessibility-api/dist/getRole.mjs"() {
      init_util();
      localNameToRoleMappings = {
        article: "article",
        aside: "complementary",
        button: "button",
        datalist: "listbox",
        dd: "definition",
        details: "group",
        dialog: "dialog",
        dt: "term",
        fieldset: "group",
        figure: "figure",
        // WARNING: Only with an accessible name
        form: "form",
        footer: "contentinfo",
        h1: "heading",
        h2: "heading",
        h3: "heading",
        h4: "heading",
        h5: "heading",
        h6: "heading",
        header: "banner",
        hr: "separator",
        html: "document",
        legend: "legend",
        li: "listitem",
        math: "math",
        main: "main",
        menu: "list",
        nav: "navigation",
        ol: "list",
        optgroup: "group",
        // WARNING: Only in certain context
        option: "option",
        output: "status",
        progress: "progressbar",
        // WARNING: Only with an accessible name
        section: "region",
        summary: "button",
        table: "table",
        tbody: "rowgroup",
        textarea: "textbox",
        tfoot: "rowgroup",
        // WARNING: Only in certain context
        td: "cell",
        th: "columnheader",
        thead: "rowgroup",
        tr: "row",
        ul: "list"
      }, prohibitedAttributes = {
        caption: /* @__PURE__ */ new Set(["aria-label", "aria-labelledby"]),
        code: /* @__PURE__ */ new Set(["aria-label", "aria-labelledby"]),
        deletion: /* @__PURE__ */ new Set(["aria-label", "aria-labelledby"]),
        emphasis: /* @__PURE__ */ new Set(["aria-label", "aria-labelledby"]),
        generic: /* @__PURE__ */ new Set(["aria-label", "aria-labelledby", "aria-roledescription"]),
        insertion: /* @__PURE__ */ new Set(["aria-label", "aria-labelledby"]),
        none: /* @__PURE__ */ new Set(["aria-label", "aria-labelledby"]),
        paragraph: /* @__PURE__ */ new Set(["aria-label", "aria-labelledby"]),
        presentation: /* @__PURE__ */ new Set(["aria-label", "aria-labelledby"]),
        strong: /* @__PURE__ */ new Set(["aria-label", "aria-labelledby"]),
        subscript: /* @__PURE__ */ new Set(["aria-label", "aria-labelledby"]),
        superscript: /* @__PURE__ */ new Set(["aria-label", "aria-labelledby"])
      };
    }
  });

  // node_modules/dom-accessibility-api/dist/util.mjs
  function isElement(node) {
    return node !== null && node.nodeType === node.ELEMENT_NODE;
  }
  function isHTMLTableCaptionElement(node) {
    return isElement(node) && getLocalName(node) === "caption";
  }
  function isHTMLInputElement(node) {
    return isElement(node) && getLocalName(node) === "input";
  }
  function isHTMLOptGroupElement(node) {
    return isElement(node) && getLocalName(node) === "optgroup";
  }
  function isHTMLSelectElement(node) {
    return isElement(node) && getLocalName(node) === "select";
  }
  function isHTMLTableElement(node) {
    return isElement(node) && getLocalName(node) === "table";
  }
  function isHTMLTextAreaElement(node) {
    return isElement(node) && getLocalName(node) === "textarea";
  }
  function safeWindow(node) {
    var _ref = node.ownerDocument === null ? node : node.ownerDocument, defaultView = _ref.defaultView;
    if (defaultView === null)
      throw new TypeError("no window available");
    return defaultView;
  }
  function isHTMLFieldSetElement(node) {
    return isElement(node) && getLocalName(node) === "fieldset";
  }
  function isHTMLLegendElement(node) {
    return isElement(node) && getLocalName(node) === "legend";
  }
  function isHTMLSlotElement(node) {
    return isElement(node) && getLocalName(node) === "slot";
  }
  function isSVGElement(node) {
    return isElement(node) && node.ownerSVGElement !== void 0;
  }
  function isSVGSVGElement(node) {
    return isElement(node) && getLocalName(node) === "svg";
  }
  function isSVGTitleElement(node) {
    return isSVGElement(node) && getLocalName(node) === "title";
  }
  function queryIdRefs(node, attributeName) {
    if (isElement(node) && node.hasAttribute(attributeName)) {
      var ids = node.getAttribute(attributeName).split(" "), root = node.getRootNode ? node.getRootNode() : node.ownerDocument;
      return ids.map(function(id) {
        return root.getElementById(id);
      }).filter(
        function(element) {
          return element !== null;
        }
        // TODO: why does this not narrow?
      );
    }
    return [];
  }
  function hasAnyConcreteRoles(node, roles) {
    return isElement(node) ? roles.indexOf(getRole(node)) !== -1 : !1;
  }
  var presentationRoles, init_util = __esm({
    "node_modules/dom-accessibility-api/dist/util.mjs"() {
      init_getRole();
      init_getRole();
      presentationRoles = ["presentation", "none"];
    }
  });

  // node_modules/dom-accessibility-api/dist/accessible-name-and-description.mjs
  function asFlatString(s) {
    return s.trim().replace(/\s\s+/g, " ");
  }
  function isHidden(node, getComputedStyleImplementation) {
    if (!isElement(node))
      return !1;
    if (node.hasAttribute("hidden") || node.getAttribute("aria-hidden") === "true")
      return !0;
    var style = getComputedStyleImplementation(node);
    return style.getPropertyValue("display") === "none" || style.getPropertyValue("visibility") === "hidden";
  }
  function isControl(node) {
    return hasAnyConcreteRoles(node, ["button", "combobox", "listbox", "textbox"]) || hasAbstractRole(node, "range");
  }
  function hasAbstractRole(node, role) {
    if (!isElement(node))
      return !1;
    if (role === "range")
      return hasAnyConcreteRoles(node, ["meter", "progressbar", "scrollbar", "slider", "spinbutton"]);
    throw new TypeError("No knowledge about abstract role '".concat(role, "'. This is likely a bug :("));
  }
  function querySelectorAllSubtree(element, selectors) {
    var elements = arrayFrom(element.querySelectorAll(selectors));
    return queryIdRefs(element, "aria-owns").forEach(function(root) {
      elements.push.apply(elements, arrayFrom(root.querySelectorAll(selectors)));
    }), elements;
  }
  function querySelectedOptions(listbox) {
    return isHTMLSelectElement(listbox) ? listbox.selectedOptions || querySelectorAllSubtree(listbox, "[selected]") : querySelectorAllSubtree(listbox, '[aria-selected="true"]');
  }
  function isMarkedPresentational(node) {
    return hasAnyConcreteRoles(node, presentationRoles);
  }
  function isNativeHostLanguageTextAlternativeElement(node) {
    return isHTMLTableCaptionElement(node);
  }
  function allowsNameFromContent(node) {
    return hasAnyConcreteRoles(node, ["button", "cell", "checkbox", "columnheader", "gridcell", "heading", "label", "legend", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab", "tooltip", "treeitem"]);
  }
  function isDescendantOfNativeHostLanguageTextAlternativeElement(node) {
    return !1;
  }
  function getValueOfTextbox(element) {
    return isHTMLInputElement(element) || isHTMLTextAreaElement(element) ? element.value : element.textContent || "";
  }
  function getTextualContent(declaration) {
    var content = declaration.getPropertyValue("content");
    return /^["'].*["']$/.test(content) ? content.slice(1, -1) : "";
  }
  function isLabelableElement(element) {
    var localName = getLocalName(element);
    return localName === "button" || localName === "input" && element.getAttribute("type") !== "hidden" || localName === "meter" || localName === "output" || localName === "progress" || localName === "select" || localName === "textarea";
  }
  function findLabelableElement(element) {
    if (isLabelableElement(element))
      return element;
    var labelableElement = null;
    return element.childNodes.forEach(function(childNode) {
      if (labelableElement === null && isElement(childNode)) {
        var descendantLabelableElement = findLabelableElement(childNode);
        descendantLabelableElement !== null && (labelableElement = descendantLabelableElement);
      }
    }), labelableElement;
  }
  function getControlOfLabel(label) {
    if (label.control !== void 0)
      return label.control;
    var htmlFor = label.getAttribute("for");
    return htmlFor !== null ? label.ownerDocument.getElementById(htmlFor) : findLabelableElement(label);
  }
  function getLabels(element) {
    var labelsProperty = element.labels;
    if (labelsProperty === null)
      return labelsProperty;
    if (labelsProperty !== void 0)
      return arrayFrom(labelsProperty);
    if (!isLabelableElement(element))
      return null;
    var document2 = element.ownerDocument;
    return arrayFrom(document2.querySelectorAll("label")).filter(function(label) {
      return getControlOfLabel(label) === element;
    });
  }
  function getSlotContents(slot) {
    var assignedNodes = slot.assignedNodes();
    return assignedNodes.length === 0 ? arrayFrom(slot.childNodes) : assignedNodes;
  }
  function computeTextAlternative(root) {
    var options = arguments.length > 1 && arguments[1] !== void 0 ? arguments[1] : {}, consultedNodes = new SetLike_default(), computedStyles = typeof Map > "u" ? void 0 : /* @__PURE__ */ new Map(), window2 = safeWindow(root), _options$compute = options.compute, compute = _options$compute === void 0 ? "name" : _options$compute, _options$computedStyl = options.computedStyleSupportsPseudoElements, computedStyleSupportsPseudoElements = _options$computedStyl === void 0 ? options.getComputedStyle !== void 0 : _options$computedStyl, _options$getComputedS = options.getComputedStyle, uncachedGetComputedStyle = _options$getComputedS === void 0 ? window2.getComputedStyle.bind(window2) : _options$getComputedS, _options$hidden = options.hidden, hidden = _options$hidden === void 0 ? !1 : _options$hidden, getComputedStyle = function(el, pseudoElement) {
      if (pseudoElement !== void 0)
        throw new Error("use uncachedGetComputedStyle directly for pseudo elements");
      if (computedStyles === void 0)
        return uncachedGetComputedStyle(el);
      var cachedStyles = computedStyles.get(el);
      if (cachedStyles)
        return cachedStyles;
      var style = uncachedGetComputedStyle(el, pseudoElement);
      return computedStyles.set(el, style), style;
    };
    function computeMiscTextAlternative(node, context) {
      var accumulatedText = "";
      if (isElement(node) && computedStyleSupportsPseudoElements) {
        var pseudoBefore = uncachedGetComputedStyle(node, "::before"), beforeContent = getTextualContent(pseudoBefore);
        accumulatedText = "".concat(beforeContent, " ").concat(accumulatedText);
      }
      var childNodes = isHTMLSlotElement(node) ? getSlotContents(node) : arrayFrom(node.childNodes).concat(queryIdRefs(node, "aria-owns"));
      if (childNodes.forEach(function(child) {
        var result = computeTextAlternative2(child, {
          isEmbeddedInLabel: context.isEmbeddedInLabel,
          isReferenced: !1,
          recursion: !0
        }), display = isElement(child) ? getComputedStyle(child).getPropertyValue("display") : "inline", separator = display !== "inline" ? " " : "";
        accumulatedText += "".concat(separator).concat(result).concat(separator);
      }), isElement(node) && computedStyleSupportsPseudoElements) {
        var pseudoAfter = uncachedGetComputedStyle(node, "::after"), afterContent = getTextualContent(pseudoAfter);
        accumulatedText = "".concat(accumulatedText, " ").concat(afterContent);
      }
      return accumulatedText.trim();
    }
    function useAttribute(element, attributeName) {
      var attribute = element.getAttributeNode(attributeName);
      return attribute !== null && !consultedNodes.has(attribute) && attribute.value.trim() !== "" ? (consultedNodes.add(attribute), attribute.value) : null;
    }
    function computeTooltipAttributeValue(node) {
      return isElement(node) ? useAttribute(node, "title") : null;
    }
    function computeElementTextAlternative(node) {
      if (!isElement(node))
        return null;
      if (isHTMLFieldSetElement(node)) {
        consultedNodes.add(node);
        for (var children = arrayFrom(node.childNodes), i = 0; i < children.length; i += 1) {
          var child = children[i];
          if (isHTMLLegendElement(child))
            return computeTextAlternative2(child, {
              isEmbeddedInLabel: !1,
              isReferenced: !1,
              recursion: !1
            });
        }
      } else if (isHTMLTableElement(node)) {
        consultedNodes.add(node);
        for (var _children = arrayFrom(node.childNodes), _i = 0; _i < _children.length; _i += 1) {
          var _child = _children[_i];
          if (isHTMLTableCaptionElement(_child))
            return computeTextAlternative2(_child, {
              isEmbeddedInLabel: !1,
              isReferenced: !1,
              recursion: !1
            });
        }
      } else if (isSVGSVGElement(node)) {
        consultedNodes.add(node);
        for (var _children2 = arrayFrom(node.childNodes), _i2 = 0; _i2 < _children2.length; _i2 += 1) {
          var _child2 = _children2[_i2];
          if (isSVGTitleElement(_child2))
            return _child2.textContent;
        }
        return null;
      } else if (getLocalName(node) === "img" || getLocalName(node) === "area") {
        var nameFromAlt = useAttribute(node, "alt");
        if (nameFromAlt !== null)
          return nameFromAlt;
      } else if (isHTMLOptGroupElement(node)) {
        var nameFromLabel = useAttribute(node, "label");
        if (nameFromLabel !== null)
          return nameFromLabel;
      }
      if (isHTMLInputElement(node) && (node.type === "button" || node.type === "submit" || node.type === "reset")) {
        var nameFromValue = useAttribute(node, "value");
        if (nameFromValue !== null)
          return nameFromValue;
        if (node.type === "submit")
          return "Submit";
        if (node.type === "reset")
          return "Reset";
      }
      var labels = getLabels(node);
      if (labels !== null && labels.length !== 0)
        return consultedNodes.add(node), arrayFrom(labels).map(function(element) {
          return computeTextAlternative2(element, {
            isEmbeddedInLabel: !0,
            isReferenced: !1,
            recursion: !0
          });
        }).filter(function(label) {
          return label.length > 0;
        }).join(" ");
      if (isHTMLInputElement(node) && node.type === "image") {
        var _nameFromAlt = useAttribute(node, "alt");
        if (_nameFromAlt !== null)
          return _nameFromAlt;
        var nameFromTitle = useAttribute(node, "title");
        return nameFromTitle !== null ? nameFromTitle : "Submit Query";
      }
      if (hasAnyConcreteRoles(node, ["button"])) {
        var nameFromSubTree = computeMiscTextAlternative(node, {
          isEmbeddedInLabel: !1,
          isReferenced: !1
        });
        if (nameFromSubTree !== "")
          return nameFromSubTree;
      }
      return null;
    }
    function computeTextAlternative2(current, context) {
      if (consultedNodes.has(current))
        return "";
      if (!hidden && isHidden(current, getComputedStyle) && !context.isReferenced)
        return consultedNodes.add(current), "";
      var labelAttributeNode = isElement(current) ? current.getAttributeNode("aria-labelledby") : null, labelElements = labelAttributeNode !== null && !consultedNodes.has(labelAttributeNode) ? queryIdRefs(current, "aria-labelledby") : [];
      if (compute === "name" && !context.isReferenced && labelElements.length > 0)
        return consultedNodes.add(labelAttributeNode), labelElements.map(function(element) {
          return computeTextAlternative2(element, {
            isEmbeddedInLabel: context.isEmbeddedInLabel,
            isReferenced: !0,
            // this isn't recursion as specified, otherwise we would skip
            // `aria-label` in
            // <input id="myself" aria-label="foo" aria-labelledby="myself"
            recursion: !1
          });
        }).join(" ");
      var skipToStep2E = context.recursion && isControl(current) && compute === "name";
      if (!skipToStep2E) {
        var ariaLabel = (isElement(current) && current.getAttribute("aria-label") || "").trim();
        if (ariaLabel !== "" && compute === "name")
          return consultedNodes.add(current), ariaLabel;
        if (!isMarkedPresentational(current)) {
          var elementTextAlternative = computeElementTextAlternative(current);
          if (elementTextAlternative !== null)
            return consultedNodes.add(current), elementTextAlternative;
        }
      }
      if (hasAnyConcreteRoles(current, ["menu"]))
        return consultedNodes.add(current), "";
      if (skipToStep2E || context.isEmbeddedInLabel || context.isReferenced) {
        if (hasAnyConcreteRoles(current, ["combobox", "listbox"])) {
          consultedNodes.add(current);
          var selectedOptions = querySelectedOptions(current);
          return selectedOptions.length === 0 ? isHTMLInputElement(current) ? current.value : "" : arrayFrom(selectedOptions).map(function(selectedOption) {
            return computeTextAlternative2(selectedOption, {
              isEmbeddedInLabel: context.isEmbeddedInLabel,
              isReferenced: !1,
              recursion: !0
            });
          }).join(" ");
        }
        if (hasAbstractRole(current, "range"))
          return consultedNodes.add(current), current.hasAttribute("aria-valuetext") ? current.getAttribute("aria-valuetext") : current.hasAttribute("aria-valuenow") ? current.getAttribute("aria-valuenow") : current.getAttribute("value") || "";
        if (hasAnyConcreteRoles(current, ["textbox"]))
          return consultedNodes.add(current), getValueOfTextbox(current);
      }
      if (allowsNameFromContent(current) || isElement(current) && context.isReferenced || isNativeHostLanguageTextAlternativeElement(current) || isDescendantOfNativeHostLanguageTextAlternativeElement(current)) {
        var accumulatedText2F = computeMiscTextAlternative(current, {
          isEmbeddedInLabel: context.isEmbeddedInLabel,
          isReferenced: !1
        });
        if (accumulatedText2F !== "")
          return consultedNodes.add(current), accumulatedText2F;
      }
      if (current.nodeType === current.TEXT_NODE)
        return consultedNodes.add(current), current.textContent || "";
      if (context.recursion)
        return consultedNodes.add(current), computeMiscTextAlternative(current, {
          isEmbeddedInLabel: context.isEmbeddedInLabel,
          isReferenced: !1
        });
      var tooltipAttributeValue = computeTooltipAttributeValue(current);
      return tooltipAttributeValue !== null ? (consultedNodes.add(current), tooltipAttributeValue) : (consultedNodes.add(current), "");
    }
    return asFlatString(computeTextAlternative2(root, {
      isEmbeddedInLabel: !1,
      // by spec computeAccessibleDescription starts with the referenced elements as roots
      isReferenced: compute === "description",
      recursion: !1
    }));
  }
  var init_accessible_name_and_description = __esm({
    "node_modules/dom-accessibility-api/dist/accessible-name-and-description.mjs"() {
      init_array_from();
      init_SetLike();
      init_util();
    }
  });

  // node_modules/dom-accessibility-api/dist/accessible-description.mjs
  var init_accessible_description = __esm({
    "node_modules/dom-accessibility-api/dist/accessible-description.mjs"() {
      init_accessible_name_and_description();
      init_util();
    }
  });

  // node_modules/dom-accessibility-api/dist/accessible-name.mjs
  function prohibitsNaming(node) {
    return hasAnyConcreteRoles(node, ["caption", "code", "deletion", "emphasis", "generic", "insertion", "none", "paragraph", "presentation", "strong", "subscript", "superscript"]);
  }
  function computeAccessibleName(root) {
    var options = arguments.length > 1 && arguments[1] !== void 0 ? arguments[1] : {};
    return prohibitsNaming(root) ? "" : computeTextAlternative(root, options);
  }
  var init_accessible_name = __esm({
    "node_modules/dom-accessibility-api/dist/accessible-name.mjs"() {
      init_accessible_name_and_description();
      init_util();
    }
  });

  // node_modules/dom-accessibility-api/dist/is-inaccessible.mjs
  var init_is_inaccessible = __esm({
    "node_modules/dom-accessibility-api/dist/is-inaccessible.mjs"() {
    }
  });

  // node_modules/dom-accessibility-api/dist/is-disabled.mjs
  var init_is_disabled = __esm({
    "node_modules/dom-accessibility-api/dist/is-disabled.mjs"() {
      init_getRole();
    }
  });

  // node_modules/dom-accessibility-api/dist/index.mjs
  var init_dist = __esm({
    "node_modules/dom-accessibility-api/dist/index.mjs"() {
      init_accessible_description();
      init_accessible_name();
      init_getRole();
      init_is_inaccessible();
      init_is_disabled();
    }
  });

  // entry.js
  var require_entry = __commonJS({
    "entry.js"() {
      init_dist();
      var KEY = "__steadyhand_model__", getOwn = Object.getOwnPropertyDescriptor, define = Object.defineProperty, toJSON = JSON.stringify, computedStyle = window.getComputedStyle, MAX_DIRTY = 1500, HOVER_LEVELS = 3, HOVER_MAX_CHILDREN = 12, HOVER_MAX_NODES = 300, MAX_TEXT = 2e3, MASK = "\u2022\u2022\u2022\u2022\u2022\u2022", SKIP = /* @__PURE__ */ new Set(["script", "style", "noscript", "template", "head", "meta", "link", "title"]), WRAPPERS = /* @__PURE__ */ new Set([
        "generic",
        "none",
        "presentation",
        "strong",
        "emphasis",
        "code",
        "mark",
        "subscript",
        "superscript",
        "deletion",
        "insertion",
        "time",
        "rowgroup"
      ]), FROM_CONTENT = /* @__PURE__ */ new Set([
        "button",
        "link",
        "heading",
        "tab",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "option",
        "treeitem",
        "cell",
        "gridcell",
        "columnheader",
        "rowheader",
        "row",
        "checkbox",
        "radio",
        "switch",
        "tooltip",
        "label",
        "legend",
        "caption"
      ]), UNNAMED = /* @__PURE__ */ new Set([
        "generic",
        "none",
        "presentation",
        "paragraph",
        "text",
        "list",
        "listitem",
        "rowgroup",
        "document",
        "blockquote",
        "code",
        "emphasis",
        "strong",
        "deletion",
        "insertion",
        "subscript",
        "superscript",
        "time",
        "mark",
        "term",
        "definition",
        "separator",
        "row",
        "caption"
      ]), PRESENTATIONAL_CHILDREN = /* @__PURE__ */ new Set([
        "button",
        "checkbox",
        "img",
        "meter",
        "menuitemcheckbox",
        "menuitemradio",
        "option",
        "progressbar",
        "radio",
        "scrollbar",
        "separator",
        "slider",
        "switch",
        "tab"
      ]), LONG_NAME = 100, RANGES = /* @__PURE__ */ new Set(["slider", "spinbutton", "progressbar", "scrollbar", "meter"]), CHECKABLE = /* @__PURE__ */ new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]), INPUT_TEXT = /* @__PURE__ */ new Set([
        "",
        "text",
        "search",
        "email",
        "url",
        "tel",
        "password",
        "number",
        "date",
        "time",
        "datetime-local",
        "month",
        "week"
      ]), CLICKY = /* @__PURE__ */ new Set([
        "click",
        "mousedown",
        "mouseup",
        "pointerdown",
        "pointerup",
        "dblclick",
        "touchstart",
        "contextmenu",
        "auxclick"
      ]), KEYS = /* @__PURE__ */ new Set(["keydown", "keyup", "keypress"]), DROPS = /* @__PURE__ */ new Set(["drop", "dragover", "dragenter"]), ICON_PREFIX = /^(?:fa|fas|far|fal|fab|fa-solid|bi|icon|icons|glyphicon|mdi|ti|ri|la|octicon|codicon|gg|ion|ionicons?|feather|lucide|ph)-(.+)$/, ICON_MODIFIERS = /^(?:lg|xs|sm|fw|[0-9]x|spin|pulse|solid|regular|light|thin|duotone|brands|inverse|border|stack|flip-.*|rotate-.*|pull-.*|ul|li)$/, CONTROLS = "button,a[href],input,select,textarea,[role=button],[role=checkbox],[role=switch],[role=link]", INNER_CONTROLS = CONTROLS + ",[tabindex],[contenteditable],[onclick]", CONTROL_ROLES = /* @__PURE__ */ new Set([
        "button",
        "link",
        "textbox",
        "searchbox",
        "checkbox",
        "radio",
        "combobox",
        "listbox",
        "option",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "tab",
        "switch",
        "slider",
        "spinbutton",
        "treeitem"
      ]), FIELD_ROLES = /* @__PURE__ */ new Set(["textbox", "searchbox", "combobox", "spinbutton", "listbox"]), TEXT_AFTER_ROLES = /* @__PURE__ */ new Set(["checkbox", "radio", "switch"]), DERIVE_ROLES = /* @__PURE__ */ new Set(["button", "link", "menuitem", "tab"]), FILE_NOISE = /* @__PURE__ */ new Set(["icon", "icons", "img", "image", "images", "btn", "button", "sprite", "small", "large", "white", "black", "dark", "light", "default", "active", "hover"]), DERIVED = /* @__PURE__ */ new Set(["icon", "class", "image", "ancestor"]), ACTION_WORDS = /* @__PURE__ */ new Set([
        "add",
        "plus",
        "minus",
        "remove",
        "delete",
        "trash",
        "bin",
        "erase",
        "edit",
        "pencil",
        "compose",
        "write",
        "reply",
        "retweet",
        "repost",
        "like",
        "unlike",
        "heart",
        "love",
        "favorite",
        "favourite",
        "fav",
        "star",
        "bookmark",
        "save",
        "share",
        "send",
        "forward",
        "more",
        "ellipsis",
        "kebab",
        "options",
        "settings",
        "gear",
        "cog",
        "preferences",
        "close",
        "cancel",
        "dismiss",
        "clear",
        "search",
        "find",
        "zoom",
        "filter",
        "sort",
        "refresh",
        "reload",
        "sync",
        "undo",
        "redo",
        "copy",
        "clone",
        "duplicate",
        "paste",
        "cut",
        "print",
        "download",
        "upload",
        "export",
        "import",
        "attach",
        "attachment",
        "paperclip",
        "unlink",
        "play",
        "pause",
        "stop",
        "record",
        "mute",
        "unmute",
        "volume",
        "next",
        "prev",
        "previous",
        "back",
        "expand",
        "collapse",
        "maximize",
        "minimize",
        "fullscreen",
        "menu",
        "hamburger",
        "home",
        "user",
        "profile",
        "account",
        "login",
        "logout",
        "signin",
        "signout",
        "cart",
        "basket",
        "checkout",
        "bell",
        "notifications",
        "notification",
        "mail",
        "email",
        "inbox",
        "message",
        "messages",
        "chat",
        "comment",
        "comments",
        "info",
        "help",
        "question",
        "warning",
        "check",
        "tick",
        "done",
        "approve",
        "reject",
        "ban",
        "block",
        "flag",
        "report",
        "pin",
        "unpin",
        "lock",
        "unlock",
        "eye",
        "view",
        "preview",
        "hide",
        "calendar",
        "clock",
        "location",
        "map",
        "camera",
        "photo",
        "video",
        "music",
        "microphone",
        "mic",
        "phone",
        "call",
        "archive",
        "folder",
        "tag",
        "resize",
        "rotate",
        "crop",
        "bold",
        "italic",
        "underline",
        "strikethrough",
        "indent",
        "outdent",
        "quote",
        "emoji",
        "upvote",
        "downvote",
        "vote",
        "follow",
        "unfollow",
        "subscribe",
        "unsubscribe",
        "mention",
        "retry",
        "rewind",
        "shuffle",
        "repeat",
        "skip",
        "translate",
        "logout",
        "new",
        "create",
        "open",
        "launch",
        "run",
        "submit",
        "go",
        "help"
      ]), HANDLE_CLASS = /(?:^|[\s_-])(?:handle|thumb|knob)(?:$|[\s_-])/i, SLIDER_CLASS = /slider|range/i, GRAB = /* @__PURE__ */ new Set(["grab", "grabbing", "move", "-webkit-grab", "-webkit-grabbing"]), SORTABLE_WORDS = /* @__PURE__ */ new Set([
        "sortable",
        "ui-sortable",
        "sortable-list",
        "dnd-list",
        "draglist",
        "drag-list",
        "reorder",
        "reorderable",
        "draggable-list",
        "dragula-container"
      ]);
      function newRegistry() {
        let models = /* @__PURE__ */ new WeakMap(), get = WeakMap.prototype.get, set = WeakMap.prototype.set, registry = Object.freeze({
          of: (d) => get.call(models, d),
          add: (d, api) => {
            get.call(models, d) || set.call(models, d, Object.freeze(api));
          }
        });
        return define(window, KEY, {
          value: registry,
          enumerable: !1,
          configurable: !1,
          writable: !1
        }), registry;
      }
      function install() {
        let registry = window[KEY] || newRegistry();
        if (registry.of(document)) return registry.of(document);
        let ownDocument = document, handled = /* @__PURE__ */ new WeakMap(), original = EventTarget.prototype.addEventListener;
        EventTarget.prototype.addEventListener = function(type, listener, options) {
          if (this instanceof Element && listener) {
            let kind = CLICKY.has(type) ? "click" : KEYS.has(type) ? "key" : DROPS.has(type) ? "drop" : "";
            if (kind) {
              let had = handled.get(this);
              had ? had.add(kind) : handled.set(this, /* @__PURE__ */ new Set([kind]));
            }
          }
          return original.call(this, type, listener, options);
        };
        let handles = (el, kind) => {
          let had = handled.get(el);
          return had !== void 0 && had.has(kind);
        }, ids = /* @__PURE__ */ new WeakMap(), byId = /* @__PURE__ */ new Map(), nextId = 1, docId = String(performance.timeOrigin);
        function idOf(el) {
          let id = ids.get(el);
          return id === void 0 && (id = nextId++, ids.set(el, id), byId.set(id, new WeakRef(el))), id;
        }
        function elementOf(id) {
          let ref = byId.get(id), el = ref && ref.deref();
          return el ? el.isConnected ? el : null : (byId.delete(id), null);
        }
        let emitted = /* @__PURE__ */ new WeakMap(), labelledBy = /* @__PURE__ */ new WeakMap(), observed = /* @__PURE__ */ new WeakSet(), controls = /* @__PURE__ */ new Map(), dirty = /* @__PURE__ */ new Set(), hovered = /* @__PURE__ */ new Set(), whole = !0, lastActive = null, mutations = 0;
        function seen(records) {
          if (mutations += records.length, !whole) {
            for (let r of records) {
              let target = r.type === "characterData" ? r.target.parentNode : r.target;
              target && dirty.add(target.nodeType === 11 ? target.host : target);
            }
            dirty.size > MAX_DIRTY && (whole = !0);
          }
        }
        let observer = new MutationObserver(seen), observeOptions = { subtree: !0, childList: !0, attributes: !0, characterData: !0 };
        function observe(root) {
          root && !observed.has(root) && (observed.add(root), observer.observe(root, observeOptions));
        }
        observe(document);
        let attachShadow = Element.prototype.attachShadow;
        Element.prototype.attachShadow = function(init) {
          let root = attachShadow.call(this, init);
          return init && init.mode === "open" && (observe(root), dirty.add(this)), root;
        };
        let touched = (event) => {
          let target = event.composedPath()[0];
          target instanceof Element && dirty.add(target);
        };
        for (let type of ["input", "change"]) window.addEventListener(type, touched, !0);
        let around = (event) => {
          let e = event.composedPath()[0];
          for (let up = 0; e instanceof Element && up < HOVER_LEVELS && !(up > 0 && e.childElementCount > HOVER_MAX_CHILDREN); up++, e = parentOf(e))
            whole || hovered.add(e);
        };
        for (let type of ["mouseover", "mouseout", "focusin", "focusout"]) window.addEventListener(type, around, !0);
        let focusedAt = /* @__PURE__ */ new WeakMap();
        window.addEventListener("focusin", (event) => {
          seen(observer.takeRecords()), focusedAt.set(event.composedPath()[0], mutations);
        }, !0);
        let styles = /* @__PURE__ */ new Map(), controlsIn = /* @__PURE__ */ new Map(), delegatedTo = /* @__PURE__ */ new WeakSet();
        function style(el) {
          let s = styles.get(el);
          return s === void 0 && (s = computedStyle.call(window, el), styles.set(el, s)), s;
        }
        let nameOptions = {
          getComputedStyle: (el, pseudo) => pseudo ? computedStyle.call(window, el, pseudo) : style(el),
          computedStyleSupportsPseudoElements: !0
        };
        function parentOf(el) {
          if (el.assignedSlot) return el.assignedSlot;
          let p = el.parentNode;
          return p ? p.nodeType === 11 ? p.host || null : p.nodeType === 1 ? p : null : null;
        }
        function deepActive() {
          let a = document.activeElement;
          for (; a && a.shadowRoot && a.shadowRoot.activeElement; ) a = a.shadowRoot.activeElement;
          return a;
        }
        function roleOf(el, tag, s) {
          let role = baseRole(el, tag, s);
          return role === "generic" && sliderHandle(el) ? "slider" : role;
        }
        function baseRole(el, tag, s) {
          if (tag === "a" && !el.hasAttribute("href") && !el.hasAttribute("role") && (handles(el, "click") || el.onclick || s.cursor === "pointer"))
            return "link";
          if (tag === "caption") return "caption";
          if (el.isContentEditable) {
            let parent = el.parentElement;
            if (!(parent && parent.isContentEditable)) return "textbox";
            if ((tag === "div" || tag === "p") && !(parent.parentElement && parent.parentElement.isContentEditable) && !s.display.startsWith("inline") && blocksIn(parent) >= 2)
              return "paragraph";
          }
          let role = getRole(el);
          if (role == null && tag === "input") {
            let type = el.type;
            return type === "file" || type === "color" ? "button" : type === "hidden" ? "none" : "textbox";
          }
          return role == null ? tag === "p" ? "paragraph" : tag === "blockquote" ? "blockquote" : tag === "code" ? "code" : tag === "strong" || tag === "b" ? "strong" : tag === "em" || tag === "i" ? "emphasis" : tag === "svg" ? el.querySelector(":scope > title") ? "img" : "generic" : tag === "label" ? "generic" : tag === "select" ? el.multiple || el.size > 1 ? "listbox" : "combobox" : "generic" : (role = role.split(" ")[0], role === "region" && !el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby") || (tag === "header" || tag === "footer") && el.closest("article,aside,main,nav,section") ? "generic" : role);
        }
        function shownAs(el, role) {
          return role === "slider" && !el.hasAttribute("role") && el.localName !== "input" || role === "paragraph" && el.isContentEditable;
        }
        function classOf(el) {
          let c = el.className;
          return typeof c == "string" ? c : c && c.baseVal || "";
        }
        function sliderHandle(el) {
          let own = classOf(el);
          if (!HANDLE_CLASS.test(own) || el.querySelector(INNER_CONTROLS)) return !1;
          if (!SLIDER_CLASS.test(own)) {
            let track = parentOf(el);
            if (!track || !SLIDER_CLASS.test(classOf(track))) return !1;
          }
          return el.hasAttribute("tabindex") || handles(el, "key") || handles(el, "click");
        }
        function sliderState(el, a) {
          let track = parentOf(el), $ = window.jQuery, widget = track && $ && $.data ? safe(() => $.data(track, "ui-slider")) : null;
          if (widget && widget.options) {
            let o = widget.options, at = [...track.children].filter((c) => c.classList.contains("ui-slider-handle")).indexOf(el), value2 = o.values && o.values.length ? safe(() => widget.values(at)) : safe(() => widget.value());
            value2 != null && (a.value = String(value2)), o.min !== void 0 && (a.min = String(o.min)), o.max !== void 0 && (a.max = String(o.max));
            return;
          }
          let shown = text(el.textContent).trim();
          if (shown) {
            a.valuetext = shown;
            return;
          }
          if (!track) return;
          let t = track.getBoundingClientRect(), h = el.getBoundingClientRect(), share = null;
          t.width >= t.height && t.width > 0 ? share = (h.x + h.width / 2 - t.x) / t.width : t.height > 0 && (share = (t.bottom - (h.y + h.height / 2)) / t.height), share !== null && (a.valuetext = `${Math.round(Math.min(1, Math.max(0, share)) * 100)}%`);
        }
        function safe(f) {
          try {
            return f();
          } catch {
            return null;
          }
        }
        function derivedName(el) {
          for (let node of [el, ...el.querySelectorAll("i,span,svg,use,em")].slice(0, 8)) {
            if (node.classList) {
              if (node.classList.contains("material-icons") || [...node.classList].some((c) => c.startsWith("material-symbols"))) {
                let text2 = node.textContent.trim();
                if (text2) return [text2.replace(/_/g, " "), "icon"];
              }
              for (let c of node.classList) {
                let m = ICON_PREFIX.exec(c);
                if (m && !ICON_MODIFIERS.test(m[1])) return [m[1].replace(/[-_]/g, " "), "icon"];
              }
            }
            let href = node.getAttribute && (node.getAttribute("href") || node.getAttribute("xlink:href"));
            if (node.localName === "use" && href && href.includes("#")) {
              let m = /#(?:icon-|i-)?(.+)$/.exec(href);
              if (m) return [m[1].replace(/[-_]/g, " "), "icon"];
            }
            let data = node.getAttribute && node.getAttribute("data-icon");
            if (data) return [data.replace(/[-_]/g, " "), "icon"];
          }
          for (let p = parentOf(el), depth = 0; p && depth < 4; p = parentOf(p), depth++) {
            let label = p.getAttribute("aria-label");
            if (label) {
              if (p.querySelectorAll("button,a[href],input,select,textarea,[role=button],[tabindex]").length === 1) return [label.trim(), "ancestor"];
              break;
            }
          }
          let parts = [el, ...el.querySelectorAll("*")].slice(0, 8);
          for (let node of parts) {
            let src = node.localName === "img" ? node.getAttribute("src") : null, bg = /-\d/.test(style(node).backgroundPosition) ? "none" : style(node).backgroundImage, url = src || (bg && bg !== "none" ? (/url\(["']?([^"')]+)["']?\)/.exec(bg) || [])[1] : null), word = url && fileWord(url);
            if (word) return [word, "image"];
          }
          for (let node of parts) {
            let word = classWord(classOf(node));
            if (word) return [word, "class"];
          }
          return null;
        }
        function words(raw) {
          return raw.replace(/([a-z])([A-Z])/g, "$1 $2").split(/[\s_\-.@]+/).map((w) => w.toLowerCase());
        }
        function actionWord(w) {
          return ACTION_WORDS.has(w) ? w : null;
        }
        function classWord(cls) {
          for (let token of cls.split(/\s+/))
            if (!/^(?:css|sc|jsx|svelte|emotion|styled)-/i.test(token)) {
              for (let w of words(token.split(/_{2,}|-{2,}/)[0] || "")) if (actionWord(w)) return w;
            }
          return null;
        }
        function fileWord(url) {
          if (url.startsWith("data:")) return null;
          let stem = (url.split(/[?#]/)[0].split("/").pop() || "").replace(/\.[a-z0-9]+$/i, ""), found = words(stem).filter((w) => /^[a-z]{3,16}$/.test(w) && /[aeiouy]/.test(w) && !FILE_NOISE.has(w));
          return found.length ? found.join(" ") : null;
        }
        function visuallyHidden(el) {
          let s = style(el);
          if (s.opacity === "0") return !0;
          let r = el.getBoundingClientRect();
          return r.width < 4 || r.height < 4 ? !0 : s.clipPath === "inset(50%)" || s.clip === "rect(0px, 0px, 0px, 0px)" || s.clip === "rect(1px, 1px, 1px, 1px)";
        }
        function actTarget(el) {
          if (!(el instanceof HTMLInputElement) || el.type !== "checkbox" && el.type !== "radio" || !visuallyHidden(el)) return el;
          for (let label of el.labels || []) {
            let r = label.getBoundingClientRect();
            if (r.width >= 4 && r.height >= 4) return label;
          }
          for (let p = parentOf(el); p && p !== document.body; p = parentOf(p)) {
            let inside = (p.shadowRoot || p).querySelectorAll(CONTROLS);
            if (inside.length > 1 || inside.length === 1 && inside[0] !== el) break;
            let r = p.getBoundingClientRect();
            if (r.width >= 4 && r.height >= 4 && style(p).visibility === "visible") return p;
          }
          return el;
        }
        function sortableContainer(el) {
          if (!el) return !1;
          for (let word of classOf(el).toLowerCase().split(/\s+/)) if (SORTABLE_WORDS.has(word)) return !0;
          for (let key of Object.keys(el)) if (key.startsWith("Sortable")) return !0;
          return !1;
        }
        function how(el, tag, role, s, parentCursor) {
          let out = [];
          (s.cursor === "pointer" && parentCursor !== "pointer" || delegatedTo.has(el)) && out.push("clickable"), (handles(el, "click") || el.onclick || el.hasAttribute("onclick")) && !out.length && !el.querySelector(CONTROLS) && !strip(el) && out.push("clickable");
          let grab = GRAB.has(s.cursor) && !GRAB.has(parentCursor);
          (el.getAttribute("draggable") === "true" || sortableContainer(parentOf(el)) || grab) && out.push("draggable"), (handles(el, "drop") || el.ondrop) && out.push("drop-target");
          let tabindex = el.getAttribute("tabindex");
          return WRAPPERS.has(role) && (tabindex !== null && Number(tabindex) >= 0 || handles(el, "key")) && out.push("focusable"), ((s.overflowY === "auto" || s.overflowY === "scroll") && el.scrollHeight > el.clientHeight + 1 && tag !== "textarea" && tag !== "body" && tag !== "html" || (s.overflowX === "auto" || s.overflowX === "scroll") && el.scrollWidth > el.clientWidth + 1 && tag !== "textarea" && tag !== "body" && tag !== "html") && out.push("scrollable"), out;
        }
        function text(s) {
          return s.replace(/[\u200B-\u200D\u2060\uFEFF]/g, "").replace(/\s+/g, " ");
        }
        function strip(el) {
          let r = el.getBoundingClientRect();
          return (r.width < 8 || r.height < 8) && !el.textContent.trim();
        }
        function read(el, parentCursor, out) {
          let tag = el.localName;
          if (SKIP.has(tag) || el.getAttribute("aria-hidden") === "true") return;
          let s = style(el);
          if (s.display === "none") return;
          let invisible = s.visibility !== "visible";
          el.shadowRoot && observe(el.shadowRoot);
          let role = invisible ? "generic" : roleOf(el, tag, s), node = { i: idOf(el), r: role };
          !invisible && shownAs(el, role) && (node.g = 1), invisible || describe(el, tag, role, s, node, parentCursor);
          let presentational = !invisible && PRESENTATIONAL_CHILDREN.has(role) && node.n && !el.querySelector(INNER_CONTROLS), inside = 0;
          if (node.h && node.h.includes("clickable") && !CONTROL_ROLES.has(role) && ownHandler(el)) {
            let items = likeItems(el);
            if (items) {
              for (let item of items) {
                delegatedTo.add(item);
                for (let part of likeParts(item)) delegatedTo.add(part);
              }
              node.h = node.h.filter((w) => w !== "clickable"), node.h.length || delete node.h;
            }
          }
          if (node.leaf || presentational)
            delete node.leaf;
          else if (tag === "iframe" || tag === "frame")
            node.r = "iframe", node.f = 1;
          else {
            let kids = [], block = !invisible && !s.display.startsWith("inline") && s.display !== "contents";
            block && kids.push(`
`);
            let names = tag === "label" && namesItsControl(el);
            names && node.h && (node.h = node.h.filter((w) => w !== "clickable"), node.h.length || delete node.h), children(el, s.cursor, kids, !invisible && !names), block && kids.push(`
`);
            for (let k of kids) typeof k == "object" && (inside += controlsIn.get(k) || 0);
            inside && (inside >= 2 || !hasText(kids)) && node.h && !CONTROL_ROLES.has(role) && node.h.includes("clickable") && (node.h = node.h.filter((w) => w !== "clickable"), node.h.length || delete node.h, node.a && DERIVED.has(node.a["named-by"]) && (delete node.n, delete node.a["named-by"], Object.keys(node.a).length || delete node.a));
            let keep = !invisible && (!WRAPPERS.has(role) || node.h || node.n), texted = hasText(kids), grouped = !keep && !invisible && inside > 0 && repeated(el) && (texted || inside >= 2);
            if (grouped && (node.r = "group", node.g = 1, keep = !0), !keep) {
              for (let k of kids) out.push(k);
              return;
            }
            if (tidy(kids, node), role === "paragraph" && node.t === void 0 && !node.c && !node.h) return;
            if (grouped && texted && node.t === void 0 && !(node.c || []).some((k) => typeof k == "string")) {
              for (let k of node.c || []) out.push(k);
              return;
            }
          }
          controlsIn.set(node, isControl2(node) ? 1 : inside), emitted.set(el, node.r), out.push(node);
        }
        function ownHandler(el) {
          return handles(el, "click") || !!el.onclick || el.hasAttribute("onclick");
        }
        function likeItems(el) {
          let kids = [...el.children].filter((c) => !SKIP.has(c.localName));
          if (kids.length < 2 || kids.some((c) => c.localName !== kids[0].localName)) return null;
          for (let c of kids)
            if (!c.textContent.trim() || c.matches(INNER_CONTROLS) || c.querySelector(INNER_CONTROLS)) return null;
          return kids;
        }
        function likeParts(el) {
          let kids = [...el.children].filter((c) => !SKIP.has(c.localName));
          if (kids.length < 2 || kids.some((c) => c.localName !== kids[0].localName)) return [];
          let texted = kids.filter((c) => c.textContent.trim());
          return texted.length >= 2 ? texted : [];
        }
        function isControl2(node) {
          return CONTROL_ROLES.has(node.r) || !!(node.h && node.h.some((w) => w !== "scrollable"));
        }
        function repeated(el) {
          let kind = (e) => `${e.localName}.${classOf(e).trim().split(/\s+/)[0]}`, mine = kind(el), same = (o) => o !== null && kind(o) === mine;
          return same(el.previousElementSibling) || same(el.nextElementSibling);
        }
        function hasText(kids) {
          return kids.some(
            (k) => typeof k == "string" ? k.trim() !== "" : !controlsIn.get(k) && (k.t !== void 0 || k.c !== void 0 || k.n !== void 0)
          );
        }
        function namesItsControl(label) {
          let control = label.control;
          return !!control && !control.hasAttribute("aria-label") && !control.hasAttribute("aria-labelledby");
        }
        function children(el, cursor, kids, shown = !0) {
          let list;
          el.shadowRoot ? list = el.shadowRoot.childNodes : el.localName === "slot" ? (list = el.assignedNodes({ flatten: !0 }), list.length || (list = el.childNodes)) : list = el.childNodes;
          for (let child of list)
            child.nodeType === 3 ? shown && kids.push(child.data) : child.nodeType === 1 && read(child, cursor, kids);
        }
        function tidy(kids, node) {
          let out = [], run = "", flush = () => {
            let t = text(run).trim();
            t && out.push(t.length > MAX_TEXT ? t.slice(0, MAX_TEXT) + "\u2026" : t), run = "";
          };
          for (let k of kids)
            typeof k == "string" ? k === `
` ? flush() : run += k : (flush(), out.push(k));
          if (flush(), node.n)
            for (let i = out.length - 1; i >= 0; i--) {
              let k = out[i];
              typeof k == "object" && k.r === "legend" && k.n === node.n && !k.c && out.splice(i, 1);
            }
          for (let i = out.length - 1; i >= 0; i--) {
            let k = out[i];
            if (typeof k != "object" || !k.a || k.a["named-by"] !== "text") continue;
            let at = TEXT_AFTER_ROLES.has(k.r) ? i + 1 : i - 1;
            typeof out[at] == "string" && out[at].replace(/\s*[:*]+$/, "").trim() === k.n && (out.splice(at, 1), at < i && i--);
          }
          if (out.length === 1 && typeof out[0] == "string") {
            out[0] !== node.n && node.v === void 0 && (node.t = out[0]);
            return;
          }
          if (out.length) {
            if (node.n && FROM_CONTENT.has(node.r) && out.every((k) => typeof k == "string") && out.join(" ") === node.n) return;
            node.n && FROM_CONTENT.has(node.r) && !node.a && out.some((k) => typeof k == "object") && node.n.length > LONG_NAME && delete node.n, node.c = out;
          }
        }
        let labelIndex = /* @__PURE__ */ new Map(), indexedScopes = /* @__PURE__ */ new Set();
        function labelsOf(el) {
          let scope = el.getRootNode();
          if (!indexedScopes.has(scope)) {
            indexedScopes.add(scope);
            for (let label of scope.querySelectorAll ? scope.querySelectorAll("label") : []) {
              let control = label.control;
              if (!control) continue;
              let list = labelIndex.get(control);
              list ? list.push(label) : labelIndex.set(control, [label]);
            }
          }
          return labelIndex.get(el) || [];
        }
        function nameOf(el, role, ways) {
          let clickable = ways.includes("clickable");
          if (UNNAMED.has(role)) {
            let authored = authorName(el);
            if (authored) return [authored, ""];
            if (clickable || ways.includes("focusable")) {
              let title = text(el.getAttribute("title") || "").trim();
              if (title) return [title, "title"];
            }
            return clickable && !text(el.textContent).trim() ? derivedName(el) || ["", ""] : ["", ""];
          }
          let name = "";
          try {
            name = computeAccessibleName(el, nameOptions);
          } catch {
            name = el.getAttribute("aria-label") || el.getAttribute("title") || "";
          }
          if (name = text(name).replace(/[\uE000-\uF8FF]/g, "").trim(), !name && el.labels && el.labels.length && (name = text([...el.labels].map((l) => l.textContent).join(" ")).trim(), name))
            return [name, ""];
          if (!name && el.getAttribute("title") && (name = text(el.getAttribute("title")).trim(), name))
            return [name, "title"];
          if (!name && FIELD_ROLES.has(role) && (name = text(el.getAttribute("placeholder") || el.getAttribute("aria-placeholder") || "").trim(), name))
            return [name, ""];
          if (!name && (DERIVE_ROLES.has(role) || clickable && WRAPPERS.has(role))) {
            let derived = derivedName(el);
            if (derived) return derived;
          }
          if (!name && FIELD_ROLES.has(role)) {
            let before = textBeside(el, "previous");
            if (before) return [before, "text"];
          }
          if (!name && TEXT_AFTER_ROLES.has(role)) {
            let after = textBeside(el, "next");
            if (after) return [after, "text"];
          }
          return [name, ""];
        }
        function depends(source, el) {
          let list = labelledBy.get(source) || [];
          list.includes(el) || list.push(el), labelledBy.set(source, list);
        }
        function authorName(el) {
          let ids2 = el.getAttribute("aria-labelledby");
          if (ids2) {
            let root = el.getRootNode(), parts = [];
            for (let id of ids2.split(/\s+/)) {
              let target = id && root.getElementById ? root.getElementById(id) : null;
              target && target !== el && parts.push(target.getAttribute("aria-label") || target.textContent || "");
            }
            let joined = text(parts.join(" ")).trim();
            if (joined) return joined;
          }
          return text(el.getAttribute("aria-label") || "").trim();
        }
        function textBeside(el, side) {
          let sibling = side === "previous" ? "previousSibling" : "nextSibling", e = el;
          for (let depth = 0; depth < 3 && e; depth++) {
            for (let n = e[sibling]; n; n = n[sibling]) {
              let found = "";
              if (n.nodeType === 3) found = n.data;
              else if (n.nodeType === 1) {
                if (SKIP.has(n.localName) || style(n).display === "none") continue;
                if (n.matches(INNER_CONTROLS) || n.querySelector(INNER_CONTROLS)) return "";
                found = n.textContent;
              } else continue;
              if (found = text(found).trim().replace(/\s*[:*]+$/, "").trim(), found && found.length <= 50) {
                let source = n.nodeType === 1 ? n : n.parentElement;
                return source && depends(source, el), found;
              }
              if (found) return "";
            }
            let p = parentOf(e);
            if (!p || p === document.body || p.querySelectorAll(INNER_CONTROLS).length > 1) return "";
            e = p;
          }
          return "";
        }
        function describe(el, tag, role, s, node, parentCursor) {
          let a = {}, ways = how(el, tag, role, s, parentCursor);
          ways.length && (node.h = ways);
          let [name, namedBy] = nameOf(el, role, ways);
          namedBy && (a["named-by"] = namedBy), name && (node.n = name);
          let refs = el.getAttribute("aria-labelledby");
          if (refs)
            for (let id of refs.split(/\s+/)) {
              let target = id && el.getRootNode().getElementById && el.getRootNode().getElementById(id);
              target && depends(target, el);
            }
          let aria = (n) => el.getAttribute(n);
          if (CHECKABLE.has(role)) {
            let checked = aria("aria-checked");
            if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) {
              checked = el.indeterminate ? "mixed" : String(el.checked), controls.set(el, controlState(el));
              let target = actTarget(el);
              target !== el && (node.x = idOf(target));
            }
            checked === "true" ? a.checked = "" : checked === "mixed" && (a.checked = "mixed");
          }
          (el.disabled || aria("aria-disabled") === "true") && (a.disabled = "");
          let expanded = aria("aria-expanded");
          expanded !== null ? a.expanded = expanded === "true" ? "" : "false" : tag === "details" && (a.expanded = el.open ? "" : "false");
          let pressed = aria("aria-pressed");
          if (pressed === "true" ? a.pressed = "" : pressed === "mixed" ? a.pressed = "mixed" : pressed === "false" && (a.pressed = "false"), (aria("aria-selected") === "true" || tag === "option" && el.selected) && (a.selected = ""), (el.required || aria("aria-required") === "true") && (a.required = ""), (aria("aria-invalid") && aria("aria-invalid") !== "false" || el.willValidate && el.matches(":user-invalid")) && (a.invalid = ""), role === "heading") {
            let level = aria("aria-level") || (/^h([1-6])$/.exec(tag) || [])[1];
            level && (a.level = level);
          }
          if (el === deepActive() && el !== document.body && (a.active = ""), RANGES.has(role)) {
            (tag === "input" || tag === "progress" || tag === "meter") && (role !== "spinbutton" && (a.value = String(el.value)), tag === "input" && controls.set(el, controlState(el)), el.min !== void 0 && el.min !== "" && (a.min = String(el.min)), el.max !== void 0 && el.max !== "" && (a.max = String(el.max)));
            let now = aria("aria-valuenow");
            now !== null && (a.value = now);
            let min = aria("aria-valuemin");
            min !== null && (a.min = min);
            let max = aria("aria-valuemax");
            max !== null && (a.max = max);
            let vt = aria("aria-valuetext");
            vt && (a.valuetext = vt), role === "slider" && a.value === void 0 && a.valuetext === void 0 && !el.hasAttribute("role") && tag !== "input" && sliderState(el, a), (tag === "input" || a.value !== void 0 || a.valuetext !== void 0) && (node.leaf = !0);
          }
          (role === "textbox" || role === "searchbox" || role === "combobox" || role === "spinbutton") && value(el, tag, role, node, a), tag === "a" && el.hasAttribute("href") && (node.p = { url: el.getAttribute("href") }, el.hasAttribute("download") && (a.download = ""));
          let placeholder = aria("placeholder") || aria("aria-placeholder");
          placeholder && (role === "textbox" || role === "searchbox" || role === "combobox") && (node.p = Object.assign(node.p || {}, { placeholder }));
          for (let _ in a) {
            node.a = a;
            break;
          }
        }
        function value(el, tag, role, node, a) {
          if (tag === "input" || tag === "textarea")
            mayBeSecret(el) ? el.value && (node.v = MASK) : (INPUT_TEXT.has(el.type) || tag === "textarea") && (node.v = el.value.length > MAX_TEXT ? el.value.slice(0, MAX_TEXT) + "\u2026" : el.value), tag === "textarea" && (a.multiline = ""), controls.set(el, controlState(el)), node.leaf = !0;
          else if (tag === "select") {
            let chosen = el.selectedOptions;
            node.v = chosen.length ? text(chosen[0].label || chosen[0].text).trim() : "", controls.set(el, controlState(el));
          } else if (el.isContentEditable) {
            if (a.multiline = "", blocksIn(el) < 2) {
              let t = el.innerText;
              node.v = t.length > MAX_TEXT ? t.slice(0, MAX_TEXT) + "\u2026" : t.replace(/\n$/, ""), node.leaf = !0;
            }
          } else aria("aria-multiline") === "true" && (a.multiline = "");
          function aria(n) {
            return el.getAttribute(n);
          }
        }
        function blocksIn(el) {
          let n = 0;
          for (let c of el.children) !SKIP.has(c.localName) && !style(c).display.startsWith("inline") && style(c).display !== "none" && n++;
          return n;
        }
        function mayBeSecret(el) {
          if (el.type === "password") return !0;
          let auto = (el.getAttribute("autocomplete") || "").toLowerCase();
          if (/(?:current-password|new-password|one-time-code)/.test(auto)) return !0;
          let masked = style(el).webkitTextSecurity;
          return !!masked && masked !== "none";
        }
        function controlState(el) {
          return el.localName === "select" ? el.selectedIndex : el.type === "checkbox" || el.type === "radio" ? `${el.checked}${el.indeterminate}` : el.value;
        }
        function readRoot() {
          let kids = [], root = document.documentElement;
          if (root) {
            let s = style(root);
            s.display !== "none" && children(root, s.cursor, kids);
          }
          let node = { i: 0, r: "document" };
          return tidy(kids, node), node.t !== void 0 && (node.c = [node.t], delete node.t), node;
        }
        function nameNow(el) {
          let tag = el.localName, s = style(el), parent = parentOf(el), role = roleOf(el, tag, s);
          return nameOf(el, role, how(el, tag, role, s, parent ? style(parent).cursor : ""))[0];
        }
        function readOne(el) {
          let parent = parentOf(el), out = [];
          return read(el, parent ? style(parent).cursor : "", out), out.filter((k) => k !== `
`);
        }
        function patchRoot(el) {
          let e = el;
          for (; e && !emitted.has(e); ) e = parentOf(e);
          if (!e) return null;
          for (let p = parentOf(e); p; p = parentOf(p))
            if (emitted.has(p) && FROM_CONTENT.has(emitted.get(p))) e = p;
            else if (emitted.has(p)) break;
          return e;
        }
        function shownAbove(el) {
          let out = [];
          for (let p = parentOf(el); p && out.length < 64; p = parentOf(p))
            emitted.has(p) && out.push(ids.get(p));
          return out;
        }
        function containsDeep(outer, inner) {
          for (let e = inner; e; e = parentOf(e)) if (e === outer) return !0;
          return !1;
        }
        function begin() {
          styles = /* @__PURE__ */ new Map(), controlsIn = /* @__PURE__ */ new Map(), labelIndex = /* @__PURE__ */ new Map(), indexedScopes = /* @__PURE__ */ new Set();
        }
        let LABELABLE_PROTOS = [
          HTMLInputElement,
          HTMLButtonElement,
          HTMLSelectElement,
          HTMLTextAreaElement,
          HTMLMeterElement,
          HTMLOutputElement,
          HTMLProgressElement
        ].map((c) => c.prototype), indexed = { get() {
          return labelsOf(this);
        }, configurable: !0 };
        function withLabelIndex(work) {
          let saved = LABELABLE_PROTOS.map((p) => getOwn(p, "labels"));
          try {
            for (let p of LABELABLE_PROTOS) define(p, "labels", indexed);
            return work();
          } finally {
            LABELABLE_PROTOS.forEach((p, i) => {
              saved[i] ? define(p, "labels", saved[i]) : delete p.labels;
            });
          }
        }
        function whole_() {
          whole = !1, dirty = /* @__PURE__ */ new Set(), hovered = /* @__PURE__ */ new Set(), controls = /* @__PURE__ */ new Map(), lastActive = deepActive();
          let tree = readRoot();
          return { doc: docId, whole: !0, tree, mutations, title: document.title };
        }
        function readChanges(force) {
          if (document !== ownDocument) return null;
          if (begin(), force || whole || !document.documentElement) return whole_();
          for (let [el, was] of controls) {
            if (!el.isConnected) {
              controls.delete(el);
              continue;
            }
            let now = controlState(el);
            now !== was && (dirty.add(el), controls.set(el, now));
          }
          let active = deepActive();
          if (active !== lastActive) {
            for (let e of [lastActive, active])
              e && e !== document.body && e !== document.documentElement && dirty.add(e);
            lastActive = active;
          }
          if (!dirty.size && !hovered.size) return { doc: docId, whole: !1, patches: [], mutations, title: document.title };
          let extra = [];
          for (let d of dirty)
            for (let e = d; e; e = parentOf(e)) {
              let deps = labelledBy.get(e);
              deps && extra.push(...deps), e.localName === "label" && e.control && extra.push(e.control);
            }
          let roots = /* @__PURE__ */ new Set();
          for (let d of [...dirty, ...extra]) {
            if (!d.isConnected && d !== document) continue;
            let r = patchRoot(d === document ? document.documentElement : d);
            if (!r || r === document.documentElement || r === document.body) return whole_();
            roots.add(r);
          }
          for (let h of hovered) {
            let r = h.isConnected ? patchRoot(h) : null;
            r && r !== document.documentElement && r !== document.body && r.getElementsByTagName("*").length <= HOVER_MAX_NODES && roots.add(r);
          }
          dirty = /* @__PURE__ */ new Set(), hovered = /* @__PURE__ */ new Set();
          let list = [...roots].filter((r) => ![...roots].some((o) => o !== r && containsDeep(o, r)));
          if (list.length > MAX_DIRTY) return whole_();
          let patches = [];
          for (let r of list) {
            let out = readOne(r);
            for (; out.length > 1 || out.length === 1 && typeof out[0] == "string"; ) {
              if (r = patchRoot(parentOf(r)), !r || r === document.documentElement || r === document.body) return whole_();
              out = readOne(r);
            }
            out.length || emitted.delete(r), patches.push({ i: ids.get(r), node: out.length ? out[0] : null, up: shownAbove(r) });
          }
          return { doc: docId, whole: !1, patches, mutations, title: document.title };
        }
        let inflight = 0, fetch_ = window.fetch;
        fetch_ && (window.fetch = function(...args) {
          inflight++;
          let done = () => inflight--, p = fetch_.apply(this, args);
          return p.then(done, done), p;
        });
        let send = XMLHttpRequest.prototype.send;
        XMLHttpRequest.prototype.send = function(...args) {
          return inflight++, this.addEventListener("loadend", () => inflight--, { once: !0 }), send.apply(this, args);
        };
        let SOON_MS = 16, rafs = /* @__PURE__ */ new Set(), soon = /* @__PURE__ */ new Set(), observing = !1, raf_ = window.requestAnimationFrame, caf_ = window.cancelAnimationFrame, setTimeout_ = window.setTimeout, clearTimeout_ = window.clearTimeout, clearInterval_ = window.clearInterval;
        window.requestAnimationFrame = function(cb) {
          if (typeof cb != "function") return raf_.call(window, cb);
          let id = raf_.call(window, (t) => (rafs.delete(id), cb(t)));
          return rafs.add(id), id;
        }, window.cancelAnimationFrame = function(id) {
          return rafs.delete(id), caf_.call(window, id);
        }, window.setTimeout = function(cb, ms, ...args) {
          if (typeof cb != "function" || !((+ms || 0) <= SOON_MS)) return setTimeout_.call(window, cb, ms, ...args);
          let id = setTimeout_.call(window, function(...a) {
            return soon.delete(id), cb.apply(this, a);
          }, ms, ...args);
          return soon.add(id), id;
        }, window.clearTimeout = function(id) {
          return soon.delete(id), clearTimeout_.call(window, id);
        }, window.clearInterval = function(id) {
          return soon.delete(id), clearInterval_.call(window, id);
        };
        let messages = 0, received = () => {
          messages = Math.max(0, messages - 1);
        }, MessageChannel_ = window.MessageChannel;
        if (MessageChannel_) {
          let Channel = class extends MessageChannel_ {
            constructor() {
              super();
              for (let [port, other] of [[this.port1, this.port2], [this.port2, this.port1]]) {
                let post = port.postMessage;
                port.postMessage = function(...args) {
                  let sent = post.apply(this, args);
                  return messages++, sent;
                }, other.addEventListener("message", received);
              }
            }
          };
          window.MessageChannel = Channel;
        }
        let postMessage_ = window.postMessage;
        window.postMessage = function(...args) {
          let sent = postMessage_.apply(this, args);
          return (this === window || this === void 0) && messages++, sent;
        }, window.addEventListener("message", (event) => {
          event.source === window && received();
        }, !0);
        for (let Observer of [window.ResizeObserver, window.IntersectionObserver]) {
          if (!Observer) continue;
          let observe_ = Observer.prototype.observe;
          Observer.prototype.observe = function(...args) {
            return observing = !0, observe_.apply(this, args);
          };
        }
        let leaving = null;
        if (window.navigation) {
          window.navigation.addEventListener("navigate", (event) => {
            !event.destination.sameDocument && !event.downloadRequest && (leaving = event);
          });
          for (let type of ["navigatesuccess", "navigateerror"])
            window.navigation.addEventListener(type, () => leaving = null);
        }
        window.addEventListener("submit", (event) => {
          try {
            let form = event.target, by = event.submitter, attr = (name, own) => (by && by.getAttribute(own) || form.getAttribute(name) || "").toLowerCase();
            attr("method", "formmethod") !== "dialog" && ["", "_self"].includes(attr("target", "formtarget")) && (leaving = event);
          } catch {
          }
        }, !0);
        let goingAway = () => leaving !== null && !leaving.defaultPrevented, queued = () => rafs.size > 0 || soon.size > 0 || messages > 0 || inflight > 0 || observing || goingAway();
        function settle(maxMs, frame) {
          let start = performance.now(), nextFrame = (f) => {
            let gone = !1, go = () => {
              gone || (gone = !0, setTimeout_.call(window, f, 0));
            };
            raf_.call(window, go), setTimeout_.call(window, go, 50);
          };
          return new Promise((resolve) => {
            let seen2 = mutations, tick = () => {
              let now = performance.now();
              if (mutations === seen2 && inflight <= 0 && !goingAway() || now - start >= maxMs) {
                leaving = null, resolve(Math.round(now - start));
                return;
              }
              seen2 = mutations, nextFrame(tick);
            };
            if (!frame && !queued()) {
              resolve(0);
              return;
            }
            nextFrame(tick);
          });
        }
        let api = {
          doc: docId,
          read: (force) => {
            let found = withLabelIndex(() => readChanges(force));
            return found && toJSON(found);
          },
          // The page handles key events on this element itself (a terminal line, a key-driven
          // widget): typing must send keys, not set the value.
          listensForKeys: (el) => handles(el, "key"),
          element: elementOf,
          // What a person acts on for element `id`; {renamed: name} when `name` is given and
          // the element's name is no longer that.
          target: (id, name) => {
            let el = elementOf(id);
            if (!el) return null;
            if (begin(), typeof name == "string") {
              let now = withLabelIndex(() => nameNow(el));
              if (now !== name) return { renamed: now };
            }
            return actTarget(el);
          },
          idOf,
          // Element `id` read again, whole (null when it is not one shown node now).
          node: (id) => {
            let el = elementOf(id);
            if (!el) return null;
            begin();
            let out = withLabelIndex(() => readOne(el));
            return out.length === 1 && typeof out[0] == "object" ? toJSON(out[0]) : null;
          },
          // Ids of `el` and every element under it that a read has shown.
          within: (el) => {
            let out = [], walk = (e) => {
              emitted.has(e) && out.push(ids.get(e));
              for (let c of e.shadowRoot ? e.shadowRoot.children : e.children) walk(c);
            };
            return walk(el), out;
          },
          // Each element's box in this frame's viewport (null when it is gone).
          boxes: (list) => list.map((id) => {
            let el = elementOf(id);
            if (!el) return null;
            let r = el.getBoundingClientRect();
            return [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
          }),
          mutations: () => mutations,
          // The mutation count when `el` last got the focus (null: not since the model began).
          focusedAt: (el) => focusedAt.has(el) ? focusedAt.get(el) : null,
          settle
        };
        return registry.add(document, api), api;
      }
      install();
    }
  });
  require_entry();
})();
