/* window.LS for store pages: the data of the page, variant selection, the app scripts
   that load on first interaction, and a cart kept in sessionStorage.
   Apps use LS.registerOnChangeVariant(callback): callback(variant) runs whenever the
   shopper picks another variant; variant.element is a selector for the container of
   that variant's form. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("ls-data").textContent);
  var later = (data.scripts && data.scripts.onfirstinteraction) || [];
  delete data.scripts;
  var LS = (window.LS = data);
  var callbacks = [];
  var cartKey = "ls-cart-" + LS.store.id;

  LS.registerOnChangeVariant = function (callback) {
    if (typeof callback === "function") callbacks.push(callback);
  };

  function loadCart() {
    try {
      var saved = JSON.parse(window.sessionStorage.getItem(cartKey) || "null");
      if (saved && Array.isArray(saved.items)) LS.cart = saved;
    } catch (error) { /* private mode or bad JSON: start empty */ }
    showCart();
  }

  function showCart() {
    var count = LS.cart.items.reduce(function (sum, item) { return sum + item.quantity; }, 0);
    document.querySelectorAll(".js-cart-count").forEach(function (node) {
      node.textContent = String(count);
    });
  }

  function sameValues(variant, chosen) {
    return variant.values.length === chosen.length && chosen.every(function (value, index) {
      return variant.values[index] === value;
    });
  }

  function chosenVariant(form) {
    var chosen = Array.prototype.map.call(form.querySelectorAll(".js-variant-option"), function (select) {
      return select.value;
    });
    var found = (LS.variants || []).filter(function (variant) { return sameValues(variant, chosen); });
    return found[0] || null;
  }

  function show(container, variant) {
    var price = container.querySelector(".js-price");
    var compare = container.querySelector(".js-compare-price");
    var stock = container.querySelector(".js-stock");
    var buy = container.querySelector(".js-buy");
    var id = container.querySelector(".js-variant-id");
    var image = container.querySelector(".js-main-image");
    if (price) price.textContent = variant ? variant.price_short : "";
    if (compare) compare.textContent = variant ? variant.compare_at_price_short : "";
    if (stock) stock.textContent = !variant ? "Unavailable" : variant.available ? "In stock" : "Out of stock";
    if (buy) buy.disabled = !(variant && variant.available);
    if (id) id.value = variant ? String(variant.id) : "";
    if (image && variant && variant.image_url) image.src = variant.image_url;
  }

  function changed(form) {
    var container = form.closest(".js-product-container") || form;
    var variant = chosenVariant(form);
    show(container, variant);
    if (!variant) return;
    callbacks.forEach(function (callback) {
      try {
        callback(Object.assign({}, variant));
      } catch (error) {
        if (window.console) window.console.error(error);
      }
    });
  }

  function addToCart(form) {
    var variant = chosenVariant(form) || (LS.variants || [])[0];
    if (!variant || !variant.available) return;
    var line = LS.cart.items.filter(function (item) { return item.id === variant.id; })[0];
    if (line) {
      line.quantity += 1;
    } else {
      LS.cart.items.push({
        id: variant.id,
        name: LS.product.name,
        unit_price: Math.round((variant.price_number || 0) * 100),
        quantity: 1,
        requires_shipping: LS.product.requires_shipping
      });
    }
    LS.cart.subtotal = LS.cart.items.reduce(function (sum, item) {
      return sum + item.unit_price * item.quantity;
    }, 0);
    try { window.sessionStorage.setItem(cartKey, JSON.stringify(LS.cart)); } catch (error) { /* full */ }
    showCart();
    var status = (form.closest(".js-product-container") || document).querySelector(".js-added");
    if (status) status.textContent = "Added to cart";
  }

  document.querySelectorAll(".js-product-form").forEach(function (form) {
    form.addEventListener("change", function (event) {
      if (event.target.matches(".js-variant-option")) changed(form);
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      addToCart(form);
    });
  });

  if (later.length) {
    var kinds = ["scroll", "click", "keydown", "touchstart", "mousemove"];
    var load = function () {
      kinds.forEach(function (kind) { window.removeEventListener(kind, load, true); });
      later.forEach(function (src) {
        var script = document.createElement("script");
        script.src = src;
        document.body.appendChild(script);
      });
    };
    kinds.forEach(function (kind) { window.addEventListener(kind, load, { capture: true, passive: true }); });
  }
  loadCart();
})();
