from django.urls import path

from .views import home, reference

urlpatterns = [
    path("", home.home, name="home"),
    path("reglas/", reference.rules, name="rules"),
]
