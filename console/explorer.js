// podium's API explorer: Swagger UI over /v1/openapi.json, served by `podium serve`.
// "Try it out" requests carry the development identity typed in the header:
// `Authorization: Dev <player>`, or `Operator <name>` on the operators' routes.
"use strict";

(function () {
  const player = document.getElementById("player");
  const operator = document.getElementById("operator");
  if (typeof window.SwaggerUIBundle !== "function") {
    document.getElementById("missing").hidden = false;
    return;
  }
  window.SwaggerUIBundle({
    url: "/v1/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    requestInterceptor: function (req) {
      const url = new URL(req.url, window.location.href);
      if (url.origin !== window.location.origin) return req;
      if (url.pathname.startsWith("/v1/operator/")) {
        const name = operator.value.trim();
        if (name) req.headers.Authorization = "Operator " + name;
      } else if (!url.pathname.startsWith("/v1/ad-callbacks/")) {
        const id = player.value.trim();
        if (id) req.headers.Authorization = "Dev " + id;
      }
      return req;
    },
  });
})();
