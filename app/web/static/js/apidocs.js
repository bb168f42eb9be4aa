// Starts Swagger UI (/docs) or ReDoc (/redoc) on the OpenAPI document named by data-openapi.
(function () {
  var swagger = document.getElementById("swagger-ui");
  if (swagger && window.SwaggerUIBundle) {
    window.ui = window.SwaggerUIBundle({
      url: swagger.getAttribute("data-openapi"),
      dom_id: "#swagger-ui",
      layout: "BaseLayout",
      deepLinking: true,
      showExtensions: true,
      validatorUrl: null,
      presets: [window.SwaggerUIBundle.presets.apis]
    });
  }
  var redoc = document.getElementById("redoc");
  if (redoc && window.Redoc) {
    window.Redoc.init(redoc.getAttribute("data-openapi"), {}, redoc);
  }
})();
